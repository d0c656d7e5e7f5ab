/** What turns MutatingAdmissionPolicy on: its feature gate and its group version, both. */
export const MAP_ON = { featureGates: { MutatingAdmissionPolicy: true }, runtimeConfig: ['admissionregistration.svc.io/v1alpha1=true'] }
