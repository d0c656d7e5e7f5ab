// A printer column's cell from the values its JSONPath found, as the reference's CRD table
// convertor makes it: the first value, kept only when it has the column's type.
import { humanDuration, now } from '../../resources/duration.js'

/** The cell of a column of `type` (a CRD's additionalPrinterColumns type) over `found`. */
export function printerCell (type: string, found: readonly unknown[]): string | number | boolean | null {
  const value = found[0]
  if (value === undefined || value === null) return null
  switch (type) {
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : null
    case 'number':
      return typeof value === 'number' ? value : null
    case 'boolean':
      return typeof value === 'boolean' ? value : null
    case 'date': {
      if (typeof value !== 'string') return null
      const at = Date.parse(value)
      return Number.isNaN(at) || !/^\d{4}-\d{2}-\d{2}T/.test(value) ? '<invalid>' : humanDuration(now() - at)
    }
    default:
      // A string column prints whatever it found, as the JSONPath printer does.
      return typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value)
  }
}
