// The FlowSchemas' Dangling condition, as the reference's configuration controller writes it:
// True (NotFound) when the schema names a priority level that does not exist, False (Found)
// otherwise. Written only when status, reason or message differ from what is stored, so the
// writes settle; every replica may write, and a conflict is left to the next pass.
import type { AnyObject } from '../../resources/define.js'
import { APISERVER_USER } from '../../resources/user-info.js'
import type { Caller, ResourceStore } from '../../storage/resource-store.js'

export const CONFIG_CONSUMER = 'api-priority-and-fairness-config-consumer-v1'

/** The condition a schema should carry, given the names of the levels that exist. */
export function danglingCondition (fs: AnyObject, levels: ReadonlySet<string>): { status: string, reason: string, message: string } {
  const name: string = fs.spec?.priorityLevelConfiguration?.name ?? ''
  return levels.has(name)
    ? { status: 'False', reason: 'Found', message: `This FlowSchema references the PriorityLevelConfiguration object named ${JSON.stringify(name)} and it exists` }
    : { status: 'True', reason: 'NotFound', message: `This FlowSchema references the PriorityLevelConfiguration object named ${JSON.stringify(name)} but there is no such object` }
}

function current (fs: AnyObject): AnyObject | undefined {
  const conditions = fs.status?.conditions
  return Array.isArray(conditions) ? conditions.find((c: AnyObject) => c?.type === 'Dangling') : undefined
}

/** One pass: every stored schema whose condition is wrong gets it written. */
export async function writeDanglingConditions (schemas: ResourceStore, levels: ResourceStore): Promise<void> {
  const names = new Set(levels.cachedObjects().map(o => o.metadata.name as string))
  const caller = (): Caller => ({ user: APISERVER_USER, manager: CONFIG_CONSUMER, warnings: [] })
  for (const fs of schemas.cachedObjects()) {
    const want = danglingCondition(fs, names)
    const have = current(fs)
    if (have !== undefined && have.status === want.status && have.reason === want.reason && have.message === want.message) continue
    const condition = { type: 'Dangling', ...want, lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') }
    await schemas.update('', fs.metadata.name, (old) => {
      const others = (Array.isArray(old.status?.conditions) ? old.status.conditions : []).filter((c: AnyObject) => c?.type !== 'Dangling')
      // The stored resourceVersion stays: a concurrent change is a conflict, seen again on the next pass.
      return { ...old, status: { ...(old.status ?? {}), conditions: [...others, condition] } }
    }, { dryRun: false, fieldValidation: 'Ignore', force: false, subresource: 'status' }, caller()).catch(() => {})
  }
}
