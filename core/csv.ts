// CSV the way the exports write it (RFC 4180, CRLF): every cell quoted, and a cell a spreadsheet would run as a
// formula (a leading = + - @, tab or CR, other than a plain negative number, whole or decimal) prefixed with a quote.
export function csvCell(v: string | number | null | undefined): string {
  const s = v == null ? '' : String(v)
  return /^[=+\-@\t\r]/.test(s) && !/^-?\d+(\.\d+)?$/.test(s) ? `"'${s.replace(/"/g, '""')}"` : `"${s.replace(/"/g, '""')}"`
}

export const csvLine = (cells: Array<string | number | null | undefined>): string => cells.map(csvCell).join(',')
