// Custom resources: every established CustomResourceDefinition served as a kind through the
// generic REST machinery, on every replica (not only the leader): the definitions' watch cache
// is followed, and a definition that is established, changed or gone is served, served anew or
// taken away within moments of the write.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { AnyObject } from '../../resources/define.js'
import { CRD_CONDITIONS, isConditionTrue, schemaLocations } from '../../resources/customresourcedefinitions.js'
import { celValidator } from '../../machinery/cel/validator.js'
import { crdRuleProblems } from '../../machinery/cel/crd-rules.js'
import { GROUPS } from '../../resources/naming.js'
import type { GroupResource } from '../../storage/resource-store.js'
import { customKind, servingFingerprint, type VersionConverter } from './custom-kind.js'
import { conversionWebhookTransport, webhookConverter } from './conversion-webhook.js'
import { parseServiceAddresses, storedServiceLookup } from '../../auth/webhook-transport.js'

const CRDS: GroupResource = { group: GROUPS.apiextensions, resource: 'customresourcedefinitions' }
const RESUBSCRIBE_MS = 1000

export interface CustomResourcesOptions {
  /** --admission-webhook-service-address: conversion webhooks reach services as admission webhooks do. */
  webhookServiceAddresses?: Record<string, string>
}

interface Serving { gr: GroupResource, fingerprint: string }

/** Whether a definition is served: its names accepted and established. */
const servable = (crd: AnyObject): boolean =>
  isConditionTrue(crd, CRD_CONDITIONS.established) && crd.status?.acceptedNames?.plural !== undefined && crd.status?.acceptedNames?.kind !== undefined

export default fp<CustomResourcesOptions>(async function customResources (fastify: FastifyInstance, opts: CustomResourcesOptions) {
  const definitions = fastify.resources.find(CRDS)
  if (definitions === undefined) return
  // A definition's CEL rules are checked when it is written (they compile, their fieldPaths
  // exist, their estimated cost is within the limits); the kind's own validation lies below CEL.
  fastify.resources.addValidation(CRDS, (crd, found) => {
    const schemaErrorFields = found.map(e => e.field)
    return schemaLocations(crd).flatMap(l => typeof l.schema === 'object' && l.schema !== null ? crdRuleProblems(l.schema as Record<string, unknown>, l.path, { schemaErrorFields }) : [])
  })
  const serving = new Map<string, Serving>()
  // A service named by no --admission-webhook-service-address entry is resolved from its Service.
  const transport = conversionWebhookTransport(parseServiceAddresses(opts.webhookServiceAddresses ?? {}), storedServiceLookup(async (resource, namespace, name) => {
    const store = fastify.resources.find({ group: '', resource })
    const found = store === undefined ? undefined : await store.readRecent(store.key(namespace, name), name)
    return found === undefined ? undefined : JSON.parse(found.json)
  }))
  const converterOf = (crd: AnyObject): VersionConverter => {
    const converter = webhookConverter({ crdName: crd.metadata.name, webhook: crd.spec.conversion.webhook ?? {}, transport })
    return async (objects, apiVersion) => await converter.convert(objects, apiVersion)
  }
  // Which definitions are being deleted, as of the last pass: asked on every create, so it is a
  // set look-up rather than a parse of the definition.
  let deleting = new Set<string>()
  const terminating = (name: string) => (): boolean => deleting.has(name)

  /** Serves what the definitions now say: each kind added, replaced or removed as its definition asks. */
  function reconcile (): void {
    const wanted = new Map<string, AnyObject>()
    const nowDeleting = new Set<string>()
    for (const crd of definitions!.cachedObjects()) {
      if (crd.metadata.deletionTimestamp !== undefined) nowDeleting.add(crd.metadata.name)
      if (servable(crd)) wanted.set(crd.metadata.name, crd)
    }
    deleting = nowDeleting
    for (const [name, s] of serving) {
      const crd = wanted.get(name)
      if (crd !== undefined && servingFingerprint(crd) === s.fingerprint) continue
      fastify.resources.remove(s.gr)
      serving.delete(name)
    }
    for (const [name, crd] of wanted) {
      if (serving.has(name)) continue
      const gr = { group: crd.spec.group, resource: crd.status.acceptedNames.plural }
      // A built-in kind's name is never taken over.
      if (fastify.resources.find(gr) !== undefined) continue
      try {
        fastify.resources.add(customKind(crd, { rules: celValidator, webhookConverter: converterOf, terminating: terminating(name) }))
        serving.set(name, { gr, fingerprint: servingFingerprint(crd) })
      } catch (err) {
        fastify.log.error({ err, crd: name }, 'serving a custom resource definition failed')
      }
    }
  }

  let scheduled = false
  const schedule = (): void => {
    if (scheduled) return
    scheduled = true
    setImmediate(() => {
      scheduled = false
      reconcile()
    })
  }
  let watch: { stop (): void } | undefined
  let stopped = false
  const follow = (): void => {
    if (stopped) return
    watch = definitions.cache.watch(definitions.prefix, definitions.cache.revision, schedule, () => {
      setTimeout(() => { reconcile(); follow() }, RESUBSCRIBE_MS).unref()
    })
  }
  let firstPass: Promise<void> | undefined
  fastify.addHook('onReady', async () => {
    firstPass = (async () => {
      await definitions.cache.ready
      reconcile()
      follow()
    })()
    await firstPass
  })
  // As the reference's readyz: not ready until every established definition is served and its
  // objects are in memory, so a replica joining a balancer answers their paths at once.
  fastify.health.addPostStartHook('crd-informer-synced', async () => {
    await firstPass
    await Promise.all([...serving.values()].map(async s => { await fastify.resources.find(s.gr)?.cache.ready }))
  })
  fastify.addHook('onClose', async () => {
    stopped = true
    watch?.stop()
  })
}, { name: 'custom-resources', dependencies: ['rest', 'health'] })
