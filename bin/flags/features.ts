// What is served and how: feature gates, the served group versions, hidden metrics.
import { knownFeatures } from '../../resources/feature-gates.js'
import { bool, gates, keyValueList, maybe, text } from './kinds.js'
import { flag } from './spec.js'

export const FEATURE_FLAGS = [
  flag({
    name: 'feature-gates', key: 'featureGates', kind: gates, default: {}, section: 'Generic', target: 'featureGates',
    help: 'A set of key=value pairs that describe feature gates for alpha/experimental features. Options are:\n' + knownFeatures().join('\n')
  }),
  flag({
    name: 'runtime-config', key: 'runtimeConfig', kind: keyValueList, default: [], section: 'API enablement', target: 'runtimeConfig',
    help: 'A set of key=value pairs that enable or disable built-in APIs. Supported options are:\n' +
      'v1=true|false for the core API group\n' +
      '<group>/<version>=true|false for a specific API group and version (e.g. apps/v1=true)\n' +
      '<group>/<version>/<resource>=true|false for one resource of a group version\n' +
      'api/all=true|false controls all API versions\n' +
      'api/ga=true|false controls all API versions of the form v[0-9]+\n' +
      'api/beta=true|false controls all API versions of the form v[0-9]+beta[0-9]+\n' +
      'api/alpha=true|false controls all API versions of the form v[0-9]+alpha[0-9]+'
  }),
  flag({
    name: 'discovery-upstream-groups', key: 'discoveryUpstreamGroups', kind: bool, default: false, section: 'API enablement', target: 'discoveryUpstreamGroups',
    help: 'List every group in discovery under its upstream name too (storage.k8s.io beside storage.svc.io), after ours, so that kubectl maps manifests written with the upstream apiVersions. Without it the upstream names are served by path only, but for the ones kubectl needs in discovery (certificates, networking).'
  }),
  flag({
    name: 'show-hidden-metrics-for-version', key: 'showHiddenMetricsForVersion', kind: maybe(text), default: undefined, section: 'Metrics', target: 'showHiddenMetricsForVersion',
    help: 'The previous version for which you want to show hidden metrics. Only the previous minor version is meaningful, other values will not be allowed. The format is <major>.<minor>, e.g.: \'1.32\'.'
  })
] as const
