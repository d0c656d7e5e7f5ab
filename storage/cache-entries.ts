// What a watch cache holds: each object as its stored bytes (attributes parsed on first use),
// and its window's events with the value each one replaced.
import type { CacheEvent, CachedObject, ObjectAttrs } from './interface.js'

/**
 * A cached object whose selector attributes are extracted on first use: most lists and watches
 * select nothing, and parsing every object's JSON on its way in would cost more than everything
 * else the cache does (and hold a parsed copy of each object's labels in memory).
 */
export class Entry implements CachedObject {
  private parsed?: ObjectAttrs
  constructor (readonly key: string, readonly revision: number, readonly json: string,
    private readonly parse: (json: string) => ObjectAttrs) {}

  get attrs (): ObjectAttrs {
    return (this.parsed ??= this.parse(this.json))
  }

  /** The attributes, parsed again if they were not kept: for a reader that keeps what it needs itself. */
  attrsNotKept (): ObjectAttrs {
    return this.parsed ?? this.parse(this.json)
  }
}

/** A window event: the object it wrote (or its last state, for DELETED) and the one it replaced. */
export class Event implements CacheEvent {
  constructor (readonly type: CacheEvent['type'], private readonly entry: CachedObject, readonly prev?: CachedObject) {}
  get key (): string { return this.entry.key }
  get revision (): number { return this.entry.revision }
  get json (): string { return this.entry.json }
  get attrs (): ObjectAttrs { return this.entry.attrs }
  get prevAttrs (): ObjectAttrs | undefined { return this.prev?.attrs }
}
