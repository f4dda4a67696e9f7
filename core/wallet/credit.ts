// What one credit is worth: accounts buy credits and calls are priced in them; the account view, the operator's
// cost report and the provider-cost guard convert with this one figure.
export const CREDIT_USD = 0.01
