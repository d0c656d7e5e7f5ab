// The delete verbs: one object, or every object a list selects; DeleteOptions from the query
// and an optional body.
import type { AnyObject } from '../../resources/define.js'
import { sendDocument, sendObject } from './encode.js'
import { parseDeleteOptions, parseListOptions, type DeleteOptions } from './options.js'
import { callerOf, relay, type RestCall } from './rest-call.js'
import { answerJson, decodeServed, storedListOptions } from './served-form.js'

const deleteOptions = (call: RestCall): DeleteOptions => {
  const body = (call.request.body as Buffer | undefined)?.length ? decodeServed(call, 'DeleteOptions') : undefined
  return parseDeleteOptions(call.query, body)
}

export async function deleteOne (call: RestCall): Promise<unknown> {
  const o = deleteOptions(call)
  const c = callerOf(call)
  const { reply, stored } = call
  const name = call.info.name
  const result = await call.store.delete(call.namespace, name, o, c)
  relay(reply, c)
  // As the reference server: 200 with the object while finalizers hold it; 202 only when
  // the client asked for cascading through the old orphanDependents=false.
  if (stored.deleteReturns === 'Object' || !result.deleted) return sendObject(reply, !result.deleted && o.orphanDependents === false ? 202 : 200, call.served, answerJson(call, result.json), call.enc)
  const details: AnyObject = { name }
  if (stored.group !== '') details.group = stored.group
  details.kind = stored.plural
  details.uid = result.object.metadata?.uid
  return sendDocument(reply, 200, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details }, call.enc)
}

export async function deleteCollection (call: RestCall): Promise<unknown> {
  const o = deleteOptions(call)
  const list = storedListOptions(call, parseListOptions(call.query, true))
  const c = callerOf(call)
  await call.store.deleteCollection(call.namespace, list, o, c)
  relay(call.reply, c)
  return sendDocument(call.reply, 200, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success' }, call.enc)
}
