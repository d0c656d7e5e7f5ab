// A CustomResourceDefinition's conversion webhook (spec.conversion.strategy Webhook), called as
// the reference apiextensions server calls it: one ConversionReview per conversion with the
// objects not yet in the desired version, its answer checked (uid, result, count, apiVersion,
// kind, identity), and of each converted object's metadata only labels and annotations kept —
// the rest is the original's. Every failure is a 500 InternalError, as the reference's storage
// layer surfaces a failed conversion.
import { randomUUID } from 'node:crypto'
import { MAX_RESPONSE_BYTES, webhookTransport, type ServiceLookup, type WebhookTransport } from '../../auth/webhook-transport.js'
import { NO_CREDENTIALS } from '../../auth/webhook-credentials.js'
import { goQuote } from '../../resources/go-quote.js'
import { sameGroup, upstreamGroup } from '../../resources/naming.js'
import { fieldErrorText, internalError, type ApiError, type FieldError } from '../../resources/status.js'
import { validateAnnotations, validateLabels } from '../../resources/validation.js'

type AnyObject = Record<string, any>

/** The reference's webhook client deadline: the whole call, reading the answer included. */
export const CONVERSION_WEBHOOK_TIMEOUT_SECONDS = 30

/** ConversionReview versions this server speaks, as conversionReviewVersions names them. */
export const SUPPORTED_CONVERSION_REVIEW_VERSIONS: readonly string[] = ['v1', 'v1beta1']

/**
 * Webhooks are written against the upstream group (controller-runtime and the reference's own
 * sample webhook decode with a scheme that registers only `apiextensions.k8s.io`), so reviews
 * go out under that spelling; an answer in either spelling is read.
 */
const REVIEW_GROUP = upstreamGroup('apiextensions')

/**
 * The transport for conversion webhooks: the reference presents them no credentials (its
 * authentication resolver for them reads no kubeconfig), and reaches services as admission
 * webhooks are reached. One per server, shared by every CRD's converter.
 */
export const conversionWebhookTransport = (serviceAddresses: Record<string, string> = {}, lookupService?: ServiceLookup): WebhookTransport =>
  webhookTransport(serviceAddresses, NO_CREDENTIALS, lookupService)

export interface WebhookConverterOptions {
  /** The CRD's metadata.name: the webhook is `conversion_webhook_for_<name>` in errors. */
  crdName: string
  /** The CRD's spec.conversion.webhook: clientConfig and conversionReviewVersions. */
  webhook: AnyObject
  transport: WebhookTransport
  timeoutSeconds?: number
}

/** What the errors name: a list's apiVersion and kind, when the objects are a list's items. */
export interface NamedAs { apiVersion: string, kind: string }

export interface WebhookConverter {
  /**
   * The objects in `desiredAPIVersion`, in order; those already in it are not sent. The inputs
   * are not modified. Errors name `namedAs`, by default the first object to convert.
   */
  convert (objects: AnyObject[], desiredAPIVersion: string, namedAs?: NamedAs): Promise<AnyObject[]>
}

const isObject = (v: unknown): v is AnyObject => typeof v === 'object' && v !== null && !Array.isArray(v)

/** schema.ParseGroupVersion then GroupVersion.String(): more than one slash is no group version. */
function groupVersionOf (apiVersion: unknown): { group: string, version: string } {
  if (typeof apiVersion !== 'string' || apiVersion === '') return { group: '', version: '' }
  const parts = apiVersion.split('/')
  if (parts.length === 1) return { group: '', version: apiVersion }
  if (parts.length === 2) return { group: parts[0]!, version: parts[1]! }
  return { group: '', version: '' }
}
const gvString = (gv: { group: string, version: string }): string => gv.group === '' ? gv.version : `${gv.group}/${gv.version}`
const stringAt = (o: AnyObject | undefined, key: string): string => typeof o?.[key] === 'string' ? o[key] : ''

/** GroupVersionKind.String(), as the reference's messages print the object converted. */
const gvkText = (apiVersion: unknown, kind: unknown): string => {
  const gv = groupVersionOf(apiVersion)
  return `${gv.group}/${gv.version}, Kind=${typeof kind === 'string' ? kind : ''}`
}

/** Go's %T of a decoded JSON value (whole numbers decode to int64 in unstructured objects). */
function goType (v: unknown): string {
  if (v === null || v === undefined) return '<nil>'
  if (typeof v === 'string') return 'string'
  if (typeof v === 'boolean') return 'bool'
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64'
  return Array.isArray(v) ? '[]interface {}' : 'map[string]interface {}'
}
const jsonKind = (v: unknown): string => v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'boolean' ? 'bool' : typeof v

/** The answer decoded into the typed ConversionReview of `version`, as Go's JSON decoder words its failures. */
function decodeResponse (body: unknown, version: string): AnyObject | undefined {
  const pkg = version === 'v1' ? 'v1' : 'v1beta1'
  const typeError = (v: unknown, struct: string, field: string, type: string) =>
    new Error(`json: cannot unmarshal ${jsonKind(v)} into Go struct field ${struct}.${field} of type ${type}`)
  if (body === undefined) throw new Error('0-length response with status code: 200')
  if (!isObject(body)) throw new Error(`json: cannot unmarshal ${jsonKind(body)} into Go value of type ${pkg}.ConversionReview`)
  for (const key of ['apiVersion', 'kind']) {
    if (body[key] !== undefined && body[key] !== null && typeof body[key] !== 'string') throw typeError(body[key], 'ConversionReview', key, 'string')
  }
  const response = body.response
  if (response === undefined || response === null) return undefined
  if (!isObject(response)) throw typeError(response, 'ConversionReview', 'response', `${pkg}.ConversionResponse`)
  if (response.uid !== undefined && response.uid !== null && typeof response.uid !== 'string') throw typeError(response.uid, 'ConversionResponse', 'response.uid', 'types.UID')
  const converted = response.convertedObjects
  if (converted !== undefined && converted !== null && !Array.isArray(converted)) throw typeError(converted, 'ConversionResponse', 'response.convertedObjects', '[]runtime.RawExtension')
  const result = response.result
  if (result !== undefined && result !== null) {
    if (!isObject(result)) throw typeError(result, 'ConversionResponse', 'response.result', 'v1.Status')
    for (const key of ['status', 'message']) {
      if (result[key] !== undefined && result[key] !== null && typeof result[key] !== 'string') throw typeError(result[key], 'Status', `response.result.${key}`, 'string')
    }
  }
  return response
}

/**
 * getConvertedObjectsFromResponse: a v1 answer must be a v1 ConversionReview for this request's
 * uid; the reference never checked either for v1beta1 and still does not.
 */
function convertedObjectsOf (body: unknown, version: string, uid: string): unknown[] {
  const response = decodeResponse(body, version)
  if (version === 'v1') {
    const review = body as AnyObject
    const gv = groupVersionOf(review.apiVersion)
    if (!sameGroup(gv.group, REVIEW_GROUP) || gv.version !== 'v1' || review.kind !== 'ConversionReview') {
      throw new Error(`expected webhook response of ${REVIEW_GROUP}/v1, Kind=ConversionReview, got ${gvkText(review.apiVersion, review.kind)}`)
    }
  }
  if (response === undefined) throw new Error('no response provided')
  if (version === 'v1' && stringAt(response, 'uid') !== uid) {
    throw new Error(`expected response.uid=${goQuote(uid)}, got ${goQuote(stringAt(response, 'uid'))}`)
  }
  const status = stringAt(response.result, 'status')
  if (status !== 'Success') {
    const message = stringAt(response.result, 'message')
    throw new Error(message !== '' ? message : `response.result.status was '${status}', not 'Success'`)
  }
  return response.convertedObjects ?? []
}

/** A RawExtension decoded as an unstructured object: a JSON object with a kind. */
function unstructuredOf (raw: unknown): AnyObject {
  // A JSON null is an empty RawExtension: no bytes to decode.
  if (raw === null) throw new Error('unexpected end of JSON input')
  if (!isObject(raw)) throw new Error(`json: cannot unmarshal ${jsonKind(raw)} into Go value of type map[string]interface {}`)
  if (typeof raw.kind !== 'string' || raw.kind === '') throw new Error(`Object 'Kind' is missing in '${JSON.stringify(raw)}'`)
  return raw
}

/** validateConvertedObject: the webhook may not change which object this is. */
function identityProblem (original: AnyObject, converted: AnyObject): string | undefined {
  for (const [field, label] of [['name', 'name'], ['namespace', 'namespace'], ['uid', 'UID']] as const) {
    const was = stringAt(original.metadata, field)
    const is = stringAt(isObject(converted.metadata) ? converted.metadata : undefined, field)
    if (was !== is) return `must have the same ${label}: ${was} != ${is}`
  }
  return undefined
}

/** field.ErrorList.ToAggregate().Error(). */
const aggregate = (errors: FieldError[]): string => {
  const texts = errors.map(e => `${e.field}: ${fieldErrorText(e)}`)
  return texts.length === 1 ? texts[0]! : `[${texts.join(', ')}]`
}

/**
 * restoreObjectMeta: the original's metadata with the webhook's labels and annotations, which
 * are validated when they differ (under the reference's paths, `metadata.annotation` included).
 */
function restoredMetadata (original: AnyObject, converted: AnyObject): AnyObject {
  if (!('metadata' in converted)) throw new Error('missing metadata in converted object')
  const answered = converted.metadata
  if (!isObject(answered)) throw new Error(`invalid metadata of type ${goType(answered)} in converted object`)
  if (original.metadata !== undefined && !isObject(original.metadata)) throw new Error(`invalid metadata of type ${goType(original.metadata)} in input object`)
  const metadata: AnyObject = original.metadata === undefined ? {} : structuredClone(original.metadata)
  for (const [field, path] of [['labels', 'metadata.labels'], ['annotations', 'metadata.annotation']] as const) {
    const given = answered[field]
    if (given === undefined || given === null) {
      delete metadata[field]
      continue
    }
    if (!isObject(given)) throw new Error(`invalid metadata.${field} of type ${goType(given)} in converted object`)
    const had = metadata[field]
    if (had !== undefined && had !== null && !isObject(had)) throw new Error(`invalid metadata.${field} of type ${goType(had)} in original object`)
    let changed = Object.keys(had ?? {}).length !== Object.keys(given).length
    for (const [k, v] of Object.entries(given)) {
      if (typeof v !== 'string') throw new Error(`metadata.${field}[${k}] must be a string, but is ${goType(v)} in converted object`)
      if (had?.[k] !== v) changed = true
    }
    if (changed) {
      const errors = field === 'labels' ? validateLabels(given, path) : validateAnnotations(given, path)
      if (errors.length > 0) throw new Error(aggregate(errors))
    }
    metadata[field] = given
  }
  return metadata
}

export function webhookConverter (o: WebhookConverterOptions): WebhookConverter {
  const clientConfig: AnyObject = o.webhook.clientConfig ?? {}
  const reviewVersions: string[] = Array.isArray(o.webhook.conversionReviewVersions) ? o.webhook.conversionReviewVersions : []
  const timeoutSeconds = o.timeoutSeconds ?? CONVERSION_WEBHOOK_TIMEOUT_SECONDS
  const hookName = `conversion_webhook_for_${o.crdName}`
  // The reference builds the webhook's client with the converter: a clientConfig it cannot call is an error then.
  if (typeof clientConfig.url !== 'string' && !isObject(clientConfig.service)) {
    throw internalError(`failed calling webhook ${goQuote(hookName)}: webhook configuration must have either service or URL`)
  }
  if (typeof clientConfig.url === 'string' && !URL.canParse(clientConfig.url)) {
    throw internalError(`failed calling webhook ${goQuote(hookName)}: Unparsable URL: parse ${goQuote(clientConfig.url)}: invalid URL`)
  }

  return {
    async convert (objects, desiredAPIVersion, namedAs) {
      const toConvert = objects.filter(obj => obj.apiVersion !== desiredAPIVersion)
      if (toConvert.length === 0) return objects.slice()
      const named = namedAs ?? toConvert[0]!
      const failed = (detail: string): ApiError => internalError(`conversion webhook for ${gvkText(named.apiVersion, named.kind)} ${detail}`)

      const version = reviewVersions.find(v => SUPPORTED_CONVERSION_REVIEW_VERSIONS.includes(v))
      if (version === undefined) throw internalError('no supported conversion review versions')
      const uid = randomUUID()
      // Field for field what the reference sends, its empty response included.
      const review = {
        kind: 'ConversionReview',
        apiVersion: `${REVIEW_GROUP}/${version}`,
        request: { uid, desiredAPIVersion, objects: toConvert },
        response: { uid: '', convertedObjects: null, result: { metadata: {} } }
      }
      // The reference reads answers of any size; this cap only keeps a runaway webhook from
      // exhausting memory, so it grows with what was sent (converted objects are of its size).
      const maxResponseBytes = MAX_RESPONSE_BYTES + 2 * Buffer.byteLength(JSON.stringify(toConvert))

      let converted: unknown[]
      try {
        const body = await o.transport.post(clientConfig, review, timeoutSeconds, maxResponseBytes)
        converted = convertedObjectsOf(body, version, uid)
      } catch (err) {
        throw failed(`failed: ${(err as Error).message}`)
      }
      if (converted.length !== toConvert.length) throw failed(`returned ${converted.length} objects, expected ${toConvert.length}`)

      const desired = gvString(groupVersionOf(desiredAPIVersion))
      const out = objects.slice()
      let index = 0
      for (let i = 0; i < objects.length; i++) {
        const original = objects[i]!
        if (original.apiVersion === desiredAPIVersion) continue
        let object: AnyObject
        try {
          object = unstructuredOf(converted[index])
        } catch (err) {
          throw failed(`returned invalid converted object at index ${index}: ${(err as Error).message}`)
        }
        // The reference counts the object before its checks: their messages number from 1.
        index++
        const invalidAt = (detail: string) => failed(`returned invalid converted object at index ${index}: ${detail}`)
        const received = gvString(groupVersionOf(object.apiVersion))
        if (received !== desired) throw invalidAt(`invalid groupVersion (expected ${desired}, received ${received})`)
        if (object.kind !== original.kind) throw invalidAt(`invalid kind (expected ${stringAt(original, 'kind')}, received ${object.kind as string})`)
        const problem = identityProblem(original, object)
        if (problem !== undefined) throw invalidAt(problem)
        let metadata: AnyObject
        try {
          metadata = restoredMetadata(original, object)
        } catch (err) {
          throw failed(`returned invalid metadata in object at index ${index}: ${(err as Error).message}`)
        }
        out[i] = { ...object, metadata }
      }
      return out
    }
  }
}
