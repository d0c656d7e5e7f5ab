// field.Path's rendering in the reference: children joined by dots, map keys and indexes in
// brackets (`spec.labels[app]`, `spec.ports[0]`).
export const child = (path: string, name: string): string => path === '' ? name : `${path}.${name}`
export const key = (path: string, k: string): string => `${path}[${k}]`
export const index = (path: string, i: number): string => `${path}[${i}]`
