// Numbered migrations, applied in order at boot. A capability that needs tables adds one here.
import { Migration0001Kernel } from './0001-kernel.ts'

export const migrations = [{ name: '0001-kernel', class: Migration0001Kernel }]
