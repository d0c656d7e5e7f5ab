// The API Priority and Fairness configuration of every server (the reference server's
// priority-and-fairness-config-producer post-start hook): at start and every minute after, each
// replica makes the bootstrap FlowSchemas and PriorityLevelConfigurations exist. Mandatory ones
// get their spec and annotation back whatever was done to them; suggested ones only while they
// are annotated autoupdate-spec "true" (or carry no such annotation and were never changed).
// Objects annotated "true" that are no longer bootstrap objects (a former release's) are deleted.
import fp from 'fastify-plugin'
import { isDeepStrictEqual } from 'node:util'
import type { FastifyInstance } from 'fastify'
import { FLOWCONTROL, GROUPS } from '../resources/naming.js'
import { ApiError } from '../resources/status.js'
import type { AnyObject } from '../resources/define.js'
import type { Caller, ResourceStore } from '../storage/resource-store.js'
import { bootstrapRead } from './loop.js'
import { APISERVER_USER } from '../resources/user-info.js'
import {
  MANDATORY_FLOW_SCHEMAS, MANDATORY_PRIORITY_LEVELS, SUGGESTED_FLOW_SCHEMAS, SUGGESTED_PRIORITY_LEVELS, specsEqual
} from '../resources/flowcontrol-bootstrap.js'

const WRITE = { dryRun: false, fieldValidation: 'Strict' as const, force: false }
const INTERVAL_MS = 60_000
const ATTEMPTS = 3

/** Go's strconv.ParseBool: undefined when the text is no boolean. */
function parseBool (value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false
  return undefined
}

const autoupdateOf = (obj: AnyObject): string | undefined =>
  obj.metadata?.annotations?.[FLOWCONTROL.autoupdateAnnotation] ?? obj.metadata?.annotations?.[FLOWCONTROL.formerAutoupdateAnnotation]

/** A suggested object is kept up to date when it says so, or, saying nothing readable, when no one has changed its spec. */
function autoupdatesSpec (obj: AnyObject): boolean {
  return parseBool(autoupdateOf(obj)) ?? obj.metadata?.generation === 1
}

/** Whether the stored spec is the bootstrap one; `exempt`'s own settings are the administrator's to tune. */
function specMatches (existing: AnyObject, expected: AnyObject): boolean {
  if (expected.spec.type === 'Exempt') {
    const exempt = existing.spec?.exempt
    if (exempt === undefined || exempt === null) return false
    const wanted = { ...expected.spec, exempt: { ...expected.spec.exempt, nominalConcurrencyShares: exempt.nominalConcurrencyShares, lendablePercent: exempt.lendablePercent } }
    return specsEqual(wanted, existing.spec)
  }
  return specsEqual(expected.spec, existing.spec)
}

/** The object as it should be stored; undefined when it already is. */
function revised (existing: AnyObject, expected: AnyObject, mandatory: boolean): AnyObject | undefined {
  const autoupdate = mandatory || autoupdatesSpec(existing)
  const annotationRight = parseBool(autoupdateOf(existing)) === autoupdate
  const specChanged = autoupdate && !specMatches(existing, expected)
  if (annotationRight && !specChanged) return undefined
  const next: AnyObject = structuredClone(existing)
  next.metadata.annotations = { ...(next.metadata.annotations ?? {}), [FLOWCONTROL.autoupdateAnnotation]: String(autoupdate) }
  if (specChanged) next.spec = structuredClone(expected.spec)
  return isDeepStrictEqual(next, existing) ? undefined : next
}

const notFound = (err: unknown): boolean => err instanceof ApiError && err.code === 404
const conflict = (err: unknown): boolean => err instanceof ApiError && err.code === 409

export default fp(async function flowcontrolBootstrap (fastify: FastifyInstance) {
  const caller = (): Caller => ({ user: APISERVER_USER, manager: 'api-priority-and-fairness-config-producer-v1', warnings: [] })
  const store = (resource: string): ResourceStore => fastify.resources.find({ group: GROUPS.flowcontrol, resource })!

  async function ensure (objects: ResourceStore, expected: AnyObject, mandatory: boolean): Promise<void> {
    const name = expected.metadata.name as string
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      try {
        const found = await bootstrapRead(objects, name, attempt)
        if (found === undefined) {
          await objects.create('', structuredClone(expected), WRITE, caller())
          return
        }
        const existing = JSON.parse(found.json)
        const next = revised(existing, expected, mandatory)
        // The stored resourceVersion makes the write fail rather than overwrite a concurrent change; the next attempt looks again.
        if (next !== undefined) await objects.update('', name, () => next, { ...WRITE, subresource: '' }, caller())
        return
      } catch (err) {
        if (!conflict(err) && !notFound(err)) throw err
      }
    }
  }

  /** Deletes what an earlier bootstrap made and this one no longer has; objects without a true annotation are someone's own. */
  async function removeUnwanted (objects: ResourceStore, wanted: readonly AnyObject[]): Promise<void> {
    const names = new Set(wanted.map(o => o.metadata.name as string))
    await objects.freshen(undefined)
    for (const obj of objects.cachedObjects()) {
      if (names.has(obj.metadata.name) || parseBool(autoupdateOf(obj)) !== true) continue
      await objects.delete('', obj.metadata.name, { dryRun: false, preconditions: { uid: obj.metadata.uid, resourceVersion: obj.metadata.resourceVersion } }, caller())
        .catch((err: unknown) => { if (!notFound(err) && !conflict(err)) throw err })
    }
  }

  async function produce (): Promise<void> {
    const levels = store('prioritylevelconfigurations')
    const schemas = store('flowschemas')
    await Promise.all([levels.freshen(undefined), schemas.freshen(undefined)])
    // Suggested first, as the reference does: mandatory objects are made only once the rest could be.
    for (const o of SUGGESTED_PRIORITY_LEVELS) await ensure(levels, o, false)
    for (const o of SUGGESTED_FLOW_SCHEMAS) await ensure(schemas, o, false)
    for (const o of MANDATORY_PRIORITY_LEVELS) await ensure(levels, o, true)
    for (const o of MANDATORY_FLOW_SCHEMAS) await ensure(schemas, o, true)
    await removeUnwanted(levels, [...MANDATORY_PRIORITY_LEVELS, ...SUGGESTED_PRIORITY_LEVELS])
    await removeUnwanted(schemas, [...MANDATORY_FLOW_SCHEMAS, ...SUGGESTED_FLOW_SCHEMAS])
  }

  let timer: NodeJS.Timeout | undefined
  let closed = false
  let running: Promise<void> = Promise.resolve()
  const again = (): void => {
    running = produce().catch(err => { if (!closed) fastify.log.warn({ err }, 'ensuring the priority and fairness configuration failed') })
  }

  fastify.health.addPostStartHook('priority-and-fairness-config-producer', async () => {
    await produce()
    if (closed) return
    timer = setInterval(again, INTERVAL_MS)
    timer.unref()
  })
  fastify.addHook('onClose', async () => {
    closed = true
    if (timer !== undefined) clearInterval(timer)
    await running
  })
}, { name: 'controller:flowcontrol-bootstrap', dependencies: ['rest', 'health'] })
