// The CPU one ValidatingAdmissionPolicy (three expressions) adds to a create, in process
// (`fastify.inject`, no TLS or load generator sharing the cores): creates into a namespace the
// policy's binding selects, alternated with creates into one it does not, in rounds.
//   npx tsx bench/policy-cost.ts [creates per round] [rounds]   (DATABASE_URL or the local PostgreSQL)
import { configMapBody } from './payload.js'
import { inProcessApp } from './in-process.js'
import { BENCH_POLICY, benchPolicyBinding } from './policy.js'

const [perRoundArg = '2000', roundsArg = '5'] = process.argv.slice(2)
const perRound = Number(perRoundArg)
const { app, db, headers } = await inProcessApp('policy_cost')
const post = async (url: string, body: string): Promise<number> => (await app.inject({ method: 'POST', url, headers, payload: body })).statusCode
const ar = '/apis/admissionregistration.svc.io/v1'
for (const ns of ['plain', 'policy']) await post('/api/v1/namespaces', JSON.stringify({ metadata: { name: ns } }))
await post(`${ar}/validatingadmissionpolicies`, JSON.stringify(BENCH_POLICY))
await post(`${ar}/validatingadmissionpolicybindings`, JSON.stringify(benchPolicyBinding('policy')))
await new Promise(resolve => setTimeout(resolve, 1500)) // the plugin's cache takes the policy in

const CONCURRENCY = 16
async function round (ns: string, n: number, r: number): Promise<number> {
  const before = process.cpuUsage()
  let next = 0
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < n) {
      const i = next++
      const code = await post(`/api/v1/namespaces/${ns}/configmaps`, configMapBody(`pp-${r}-${i}`, 1024))
      if (code !== 201) throw new Error(`create in ${ns} answered ${code}`)
    }
  }))
  const used = process.cpuUsage(before)
  return (used.user + used.system) / n
}
await round('plain', 500, -1)
await round('policy', 500, -1)
const plain: number[] = []
const policy: number[] = []
for (let r = 0; r < Number(roundsArg); r++) {
  plain.push(await round('plain', perRound, r))
  policy.push(await round('policy', perRound, r))
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
console.log(`CPU per create (µs, this process; rounds): plain ${plain.map(Math.round).join(', ')}; through the policy ${policy.map(Math.round).join(', ')}`)
console.log(`median: plain ${Math.round(median(plain))} µs, policy ${Math.round(median(policy))} µs, ratio of creates per CPU second ${(median(plain) / median(policy)).toFixed(2)}x`)
await app.close()
await db.drop()
