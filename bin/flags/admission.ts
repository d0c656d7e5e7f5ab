// Admission flags: which plugins run, their configuration, and the settings of the plugins that
// take their own flags.
import { checkPluginNames, PLUGIN_NAMES } from '../../admission/index.js'
import { keyValues, maybe, seconds, strings, text } from './kinds.js'
import { flag } from './spec.js'

const PLUGIN_LIST = `Comma-delimited list of admission plugins: ${PLUGIN_NAMES.join(', ')}. The order of plugins in this flag does not matter.`

export const ADMISSION_FLAGS = [
  flag({
    name: 'enable-admission-plugins', key: 'enableAdmissionPlugins', kind: strings, default: [], section: 'Admission', target: 'admission.enable',
    check: (names) => { checkPluginNames({ enable: names }) },
    help: `admission plugins that should be enabled in addition to default enabled ones. ${PLUGIN_LIST}`
  }),
  flag({
    name: 'disable-admission-plugins', key: 'disableAdmissionPlugins', kind: strings, default: [], section: 'Admission', target: 'admission.disable',
    check: (names) => { checkPluginNames({ disable: names }) },
    help: `admission plugins that should be disabled although they are in the default enabled plugins list. ${PLUGIN_LIST}`
  }),
  flag({
    name: 'admission-control-config-file', key: 'admissionControlConfigFile', kind: maybe(text), default: undefined, section: 'Admission', target: 'admission.configFile',
    help: 'File with admission control configuration.'
  }),
  flag({
    name: 'admission-webhook-service-address', key: 'admissionWebhookServiceAddresses', kind: keyValues('<name>.<namespace>.svc[:port]=host:port', /^[^=]+:\d+$/), default: {}, section: 'Admission', target: 'admission.webhookServiceAddresses',
    help: '<name>.<namespace>.svc[:port]=host:port (comma list, repeatable): where a webhook named by service is reached, there being no service network here.'
  }),
  flag({
    name: 'default-not-ready-toleration-seconds', key: 'defaultNotReadyTolerationSeconds', kind: maybe(seconds), default: undefined, defaultText: '300', section: 'Generic', target: 'admission.defaultNotReadyTolerationSeconds',
    help: 'Indicates the tolerationSeconds of the toleration for notReady:NoExecute that is added by default to every pod that does not already have such a toleration.'
  }),
  flag({
    name: 'default-unreachable-toleration-seconds', key: 'defaultUnreachableTolerationSeconds', kind: maybe(seconds), default: undefined, defaultText: '300', section: 'Generic', target: 'admission.defaultUnreachableTolerationSeconds',
    help: 'Indicates the tolerationSeconds of the toleration for unreachable:NoExecute that is added by default to every pod that does not already have such a toleration.'
  })
] as const
