// Table representation (kubectl get): the kind's columns, or Name and Created At.
import type { AnyObject, Column, Resource } from '../../resources/define.js'
import { clockReadCount, humanDuration, now } from '../../resources/duration.js'

export interface ColumnDefinition { name: string, type: string, format: string, description: string, priority: number }
export interface TableRow { cells: unknown[], object?: unknown }
export type IncludeObject = 'None' | 'Metadata' | 'Object'

const NAME_COLUMN: ColumnDefinition = { name: 'Name', type: 'string', format: 'name', description: 'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition.', priority: 0 }
const CREATED_AT: ColumnDefinition = { name: 'Created At', type: 'date', format: '', description: 'CreationTimestamp is a timestamp representing the server time when this object was created.', priority: 0 }
const AGE: ColumnDefinition = { name: 'Age', type: 'string', format: '', description: CREATED_AT.description, priority: 0 }

export { humanDuration }

export const age = (timestamp: string | undefined | null): string =>
  timestamp === undefined || timestamp === null ? '<unknown>' : humanDuration(now() - Date.parse(timestamp))

/** A kind that lists an Age column itself places it (before wide columns, as kubectl shows pods). */
const placesAge = (r: Resource): boolean => r.completeColumns === true || r.columns?.some(c => c.name === AGE.name) === true

const definitionOf = (c: Column): ColumnDefinition => ({
  name: c.name, type: c.type === 'date' ? 'string' : c.type, format: c.format ?? '', description: c.description ?? '', priority: c.priority ?? 0
})

export function columnDefinitions (r: Resource): ColumnDefinition[] {
  if (r.columns === undefined) return [NAME_COLUMN, CREATED_AT]
  return [NAME_COLUMN, ...r.columns.map(definitionOf), ...(placesAge(r) ? [] : [AGE])]
}

function cell (c: Column, obj: AnyObject): unknown {
  const v = c.value(obj)
  if (c.type === 'date') return typeof v === 'string' ? age(v) : '<unknown>'
  return v ?? (c.type === 'string' && c.nullWhenMissing !== true ? '<none>' : null)
}

export function tableRow (r: Resource, obj: AnyObject, include: IncludeObject, metaApiVersion: string): TableRow {
  const meta = obj.metadata ?? {}
  const cells: unknown[] = r.columns === undefined
    ? [meta.name, meta.creationTimestamp ?? null]
    : [r.tableName?.(obj) ?? meta.name, ...r.columns.map(c => cell(c, obj)), ...(placesAge(r) ? [] : [age(meta.creationTimestamp)])]
  const row: TableRow = { cells }
  if (include === 'Object') row.object = obj
  else if (include === 'Metadata') row.object = partialObjectMetadata(obj, metaApiVersion)
  return row
}

/**
 * A row's JSON with its ages left out (`parts` around each hole, `since` the timestamp of each):
 * the rest does not change while the object does not, so the rows of a list asked again are
 * kept this way and only the ages made at each answer. Undefined when a cell reads the clock
 * some other way (a running Job's Duration): that row is made afresh every time.
 */
export interface RowTemplate { parts: string[], since: Array<string | null | undefined> }

export function rowTemplate (r: Resource, obj: AnyObject, include: IncludeObject, metaApiVersion: string): RowTemplate | undefined {
  const meta = obj.metadata ?? {}
  const parts: string[] = []
  const since: RowTemplate['since'] = []
  let text = '{"cells":['
  const put = (value: unknown): void => { text += JSON.stringify(value) ?? 'null' }
  const hole = (timestamp: string | null | undefined): void => {
    parts.push(text)
    since.push(timestamp)
    text = ''
  }
  const reads = clockReadCount()
  if (r.columns === undefined) {
    put(meta.name)
    text += ','
    put(meta.creationTimestamp ?? null)
  } else {
    put(r.tableName?.(obj) ?? meta.name)
    for (const c of r.columns) {
      text += ','
      if (c.type !== 'date') {
        put(cell(c, obj))
        continue
      }
      const v = c.value(obj)
      if (typeof v === 'string') hole(v)
      else put('<unknown>')
    }
    if (!placesAge(r)) {
      text += ','
      hole(meta.creationTimestamp)
    }
  }
  if (clockReadCount() !== reads) return undefined
  text += ']'
  if (include === 'Object') text += `,"object":${JSON.stringify(obj)}`
  else if (include === 'Metadata') text += `,"object":${JSON.stringify(partialObjectMetadata(obj, metaApiVersion))}`
  parts.push(text + '}')
  return { parts, since }
}

/** A row from its template, its ages at this moment; `ages` shares them among a list's rows. */
export function renderRow (t: RowTemplate, ages: Map<string | null | undefined, string>): string {
  let text = t.parts[0]!
  for (let i = 0; i < t.since.length; i++) {
    const timestamp = t.since[i]
    let shown = ages.get(timestamp)
    if (shown === undefined) ages.set(timestamp, shown = JSON.stringify(age(timestamp)))
    text += shown + t.parts[i + 1]!
  }
  return text
}

export const partialObjectMetadata = (obj: AnyObject, metaApiVersion: string): AnyObject =>
  ({ kind: 'PartialObjectMetadata', apiVersion: metaApiVersion, metadata: obj.metadata })

export function table (r: Resource, objects: AnyObject[], listMeta: AnyObject, include: IncludeObject, apiVersion: string, withColumns = true): AnyObject {
  return {
    kind: 'Table',
    apiVersion,
    metadata: listMeta,
    columnDefinitions: withColumns ? columnDefinitions(r) : null,
    rows: objects.map(o => tableRow(r, o, include, apiVersion))
  }
}
