// The kinds of value the Service allocator's flags take, checked as the allocator reads them
// (apart from bin/flags/kinds.ts, which the start-up entry loads before the app's modules).
import { servicePools } from '../../resources/services.js'
import { commaList, showList, type Kind } from './kinds.js'

/** One CIDR, or two of different families (dual stack), checked as the Service allocator reads them. */
export const serviceCIDRs: Kind<string[]> = {
  type: 'string',
  parse (_name, t) {
    const ranges = commaList(t)
    servicePools({ clusterIPRanges: ranges })
    return ranges
  },
  show: showList
}

/** `N1-N2`, checked as the node port allocator reads it. */
export const portRange: Kind<string> = {
  type: 'portRange',
  parse (_name, t) {
    servicePools({ nodePortRange: t })
    return t
  },
  show: (v) => v
}
