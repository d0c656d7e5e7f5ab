// Evaluations per second of one compiled rule in three CEL engines (see machinery/cel/README.md).
import * as buf from '@bufbuild/cel'
import * as marc from '@marcbachmann/cel-js'
import * as celjs from 'cel-js'
const expr = process.env.EXPR ?? 'self.replicas <= self.maxReplicas && self.name.startsWith("web-")'
const self = { replicas: 3n, maxReplicas: 5n, name: 'web-1' }
const selfNum = { replicas: 3, maxReplicas: 5, name: 'web-1' }
function bench (name, fn) {
  for (let i = 0; i < 20000; i++) fn()
  const n = 300000; const t = process.hrtime.bigint()
  for (let i = 0; i < n; i++) if (fn() !== true) throw new Error(name + ' wrong: ' + fn())
  const s = Number(process.hrtime.bigint() - t) / 1e9
  console.log(`${name}: ${Math.round(n / s).toLocaleString('en')} evaluations/s`)
}
const bp = buf.plan(buf.celEnv(), buf.parse(expr))
bench('@bufbuild/cel plan(parse) ', () => bp({ self }))
const env = new marc.Environment().registerVariable('self', 'dyn')
const mp = env.parse(expr)
bench('@marcbachmann/cel-js Environment.parse', () => mp({ self }))
const typed = new marc.Environment().registerVariable({ name: 'self', schema: { replicas: 'int', maxReplicas: 'int', name: 'string' } })
const tp = typed.parse(expr)
bench('@marcbachmann/cel-js typed schema', () => tp({ self }))
const cst2 = celjs.parse("self.replicas <= self.maxReplicas && size(self.name) > 3")
bench("cel-js parse→evaluate(cst) [startsWith→\"web-\" == self.name.substring? no: size() check]", () => celjs.evaluate(cst2.cst, { self: selfNum }))
