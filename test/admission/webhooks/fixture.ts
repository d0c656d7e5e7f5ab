// One webhook per test case for the answer and patch tests: its own path, configmaps labelled
// `case: <path>`, and the reference's 500 for a call error.
import { before } from 'node:test'
import assert from 'node:assert/strict'
import { suiteApp } from '../../resources/suite.js'
import { startAdmissionWebhook, type AdmissionWebhookServer, type Handler } from '../../helpers/admission-webhook.js'

type AnyObject = Record<string, any>
export const MUTATING = '/apis/admissionregistration.svc.io/v1/mutatingwebhookconfigurations'
export const VALIDATING = '/apis/admissionregistration.svc.io/v1/validatingwebhookconfigurations'
export const CMS = '/api/v1/namespaces/default/configmaps'

export const b64 = (text: string): string => Buffer.from(text).toString('base64')

interface Response { statusCode: number, body: string, json: () => AnyObject }

/** Asserts the reference's answer to a call error under failurePolicy Fail: a 500 naming the webhook, then `reason`. */
export function assertCallError (res: Response, webhook: string, reason: string | RegExp): void {
  assert.equal(res.statusCode, 500, res.body)
  const s = res.json()
  assert.equal(s.kind, 'Status')
  assert.equal(s.reason, 'InternalError')
  const prefix = `Internal error occurred: failed calling webhook "${webhook}": `
  assert.ok(s.message.startsWith(prefix), s.message)
  if (typeof reason === 'string') assert.equal(s.message.slice(prefix.length), reason)
  else assert.match(s.message.slice(prefix.length), reason)
}

/** An app and a webhook server for a describe block. */
export function webhookCases () {
  const app = suiteApp()
  let hooks: AdmissionWebhookServer
  before(async () => { hooks = await startAdmissionWebhook({ after: () => {} }) })
  let n = 0
  return {
    app,
    /** One webhook on its own path answering `answer`; returns the webhook's name. */
    async configure (url: string, path: string, answer: AnyObject | Handler, over: AnyObject = {}): Promise<string> {
      hooks.handle(path, typeof answer === 'function' ? answer as Handler : () => answer)
      const name = `${path.slice(1)}.hooks.example.com`
      const webhook = {
        name,
        clientConfig: { url: `${hooks.base}${path}`, caBundle: hooks.caBundle },
        rules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
        objectSelector: { matchLabels: { case: path.slice(1) } },
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
        ...over
      }
      const res = await app().request({ method: 'POST', url, payload: { metadata: { name: `cfg-${++n}` }, webhooks: [webhook] } })
      assert.equal(res.statusCode, 201, res.body)
      return name
    },
    /** Creates a configmap the webhook on `path` sees. */
    createCm: (path: string, name = path.slice(1)) =>
      app().request({ method: 'POST', url: CMS, payload: { metadata: { name, labels: { case: path.slice(1) } }, data: { a: '1' } } })
  }
}
