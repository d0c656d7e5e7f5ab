// The read verbs: get, list and watch, answered from the store in the path's form.
import type { AnyObject } from '../../resources/define.js'
import { MEDIA_TYPES } from '../../resources/naming.js'
import { sendList, sendObject } from './encode.js'
import { parseListOptions } from './options.js'
import type { RestCall } from './rest-call.js'
import { answerJson, storedListOptions } from './served-form.js'
import { serveWatch } from './watch.js'
import { convertsOutOfProcess, inPathVersion } from './version-conversion.js'

export async function get (call: RestCall): Promise<unknown> {
  const { reply } = call
  const found = await call.store.get(call.namespace, call.info.name, (call.query.resourceVersion as string | undefined) ?? undefined)
  if (call.request.method === 'HEAD') return reply.code(200).type(MEDIA_TYPES.json).send()
  const json = convertsOutOfProcess(call) ? (await inPathVersion(call, [found.json]))[0]! : answerJson(call, found.json)
  return sendObject(reply, 200, call.served, json, call.enc)
}

export async function list (call: RestCall): Promise<unknown> {
  const o = storedListOptions(call, parseListOptions(call.query))
  const page = await call.store.list(call.namespace, o)
  const listMeta: AnyObject = { resourceVersion: String(page.revision) }
  if (page.continue !== undefined) listMeta.continue = page.continue
  if (page.remaining !== undefined) listMeta.remainingItemCount = page.remaining
  const alias = call.alias
  if (alias !== undefined) {
    const jsons = convertsOutOfProcess(call) ? await inPathVersion(call, page.items.map(i => i.json)) : page.items.map(i => answerJson(call, i.json))
    return sendList(call.reply, { ...call.served, apiVersion: alias }, jsons.map(json => ({ json })), listMeta, call.enc)
  }
  return sendList(call.reply, call.stored, page.items, listMeta, call.enc, page.shared)
}

export async function watch (call: RestCall): Promise<unknown> {
  const o = storedListOptions(call, parseListOptions(call.query, false, call.context.registry.features.enabled('WatchList')))
  const alias = call.alias
  const convertAll = convertsOutOfProcess(call) ? async (jsons: readonly string[]) => await inPathVersion(call, jsons) : undefined
  await serveWatch(call.store, call.namespace, o, call.enc.repr, call.request, call.reply, call.context.watch, alias === undefined ? undefined : { apiVersion: alias, served: call.served, rewrite: json => answerJson(call, json), convertAll })
  return call.reply
}
