// ClusterRole aggregation: aggregated roles follow the labelled roles their selectors match.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/app.js'
import { GROUPS, RBAC } from '../../resources/naming.js'

const CLUSTERROLES = `/apis/${GROUPS.rbac}/v1/clusterroles`

async function eventually<T> (read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 5000): Promise<T> {
  const end = Date.now() + timeoutMs
  let last = await read()
  while (!ok(last) && Date.now() < end) {
    await new Promise(resolve => setTimeout(resolve, 50))
    last = await read()
  }
  return last
}

test('aggregated roles collect, follow and drop the rules of labelled ClusterRoles', async (t) => {
  const { request } = await buildTestApp(t)
  const rulesOf = async (name: string) => (await request({ method: 'GET', url: `${CLUSTERROLES}/${name}` })).json().rules ?? []
  const hasWidgets = (verb: string) => (rules: Array<{ resources?: string[], verbs: string[] }>) =>
    rules.some(r => r.resources?.includes('widgets') === true && r.verbs.includes(verb))

  // The defaults already aggregate: view holds system:aggregate-to-view's rules, edit holds view's.
  const view = await eventually(() => rulesOf('view'), r => r.length > 0)
  assert.ok(view.some((r: { resources?: string[] }) => r.resources?.includes('configmaps')))
  const edit = await eventually(() => rulesOf('edit'), r => r.length > view.length)
  assert.ok(edit.some((r: { resources?: string[], verbs: string[] }) => r.resources?.includes('secrets') === true && r.verbs.includes('create')))

  const created = await request({
    method: 'POST', url: CLUSTERROLES,
    payload: { metadata: { name: 'widget-reader', labels: { [RBAC.aggregateTo('view')]: 'true' } }, rules: [{ apiGroups: ['example.com'], resources: ['widgets'], verbs: ['get'] }] }
  })
  assert.equal(created.statusCode, 201, created.body)
  assert.ok(hasWidgets('get')(await eventually(() => rulesOf('view'), hasWidgets('get'))), 'view picks up a labelled role')
  assert.ok(hasWidgets('get')(await eventually(() => rulesOf('admin'), hasWidgets('get'))), 'admin aggregates edit, which aggregates view')

  const changed = await request({
    method: 'PATCH', url: `${CLUSTERROLES}/widget-reader`, headers: { 'content-type': 'application/merge-patch+json' },
    payload: { rules: [{ apiGroups: ['example.com'], resources: ['widgets'], verbs: ['list'] }] }
  })
  assert.equal(changed.statusCode, 200, changed.body)
  const afterChange = await eventually(() => rulesOf('view'), r => hasWidgets('list')(r) && !hasWidgets('get')(r))
  assert.ok(hasWidgets('list')(afterChange) && !hasWidgets('get')(afterChange), 'view follows a changed rule')

  const unlabelled = await request({
    method: 'PATCH', url: `${CLUSTERROLES}/widget-reader`, headers: { 'content-type': 'application/merge-patch+json' },
    payload: { metadata: { labels: { [RBAC.aggregateTo('view')]: null } } }
  })
  assert.equal(unlabelled.statusCode, 200, unlabelled.body)
  const afterUnlabel = await eventually(() => rulesOf('view'), r => !hasWidgets('list')(r))
  assert.ok(!hasWidgets('list')(afterUnlabel), 'view drops a role that no longer matches')

  // matchExpressions select too.
  await request({
    method: 'POST', url: CLUSTERROLES,
    payload: { metadata: { name: 'collector' }, aggregationRule: { clusterRoleSelectors: [{ matchExpressions: [{ key: 'tier', operator: 'In', values: ['gold'] }] }] } }
  })
  await request({ method: 'POST', url: CLUSTERROLES, payload: { metadata: { name: 'gold', labels: { tier: 'gold' } }, rules: [{ apiGroups: [''], resources: ['widgets'], verbs: ['watch'] }] } })
  assert.ok(hasWidgets('watch')(await eventually(() => rulesOf('collector'), hasWidgets('watch'))))
})
