// The Kubernetes manifests of deploy/kubernetes/ checked without a cluster: every object against the Kubernetes
// OpenAPI schemas vendored by the kubernetes-models package (types, required fields, enums, formats), and, as
// `kubectl apply --validate=strict` would, no unknown field (each object type-checked as an object literal of
// its kubernetes-types type, whose excess-property check catches a misspelt key). Then what the service needs of
// them: the roles it runs, the probes, the non-root read-only pods, the HPA's target, the settings.
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import ts from 'typescript'
import { parseAllDocuments } from 'yaml'
import { Deployment } from 'kubernetes-models/apps/v1'
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2'
import { CronJob, Job } from 'kubernetes-models/batch/v1'
import { ConfigMap, Secret, Service } from 'kubernetes-models/v1'
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1'

const dir = path.resolve(import.meta.dirname, '../../deploy/kubernetes')
const root = path.resolve(import.meta.dirname, '../..')

/** apiVersion/kind → the schema-validating model and the kubernetes-types module and type name. */
const KINDS: Record<string, { model: new (data: never) => { validate(): void }; types: [string, string] }> = {
  'apps/v1/Deployment': { model: Deployment, types: ['kubernetes-types/apps/v1', 'Deployment'] },
  'autoscaling/v2/HorizontalPodAutoscaler': {
    model: HorizontalPodAutoscaler,
    types: ['kubernetes-types/autoscaling/v2', 'HorizontalPodAutoscaler'],
  },
  'batch/v1/CronJob': { model: CronJob, types: ['kubernetes-types/batch/v1', 'CronJob'] },
  'batch/v1/Job': { model: Job, types: ['kubernetes-types/batch/v1', 'Job'] },
  'v1/ConfigMap': { model: ConfigMap, types: ['kubernetes-types/core/v1', 'ConfigMap'] },
  'v1/Secret': { model: Secret, types: ['kubernetes-types/core/v1', 'Secret'] },
  'v1/Service': { model: Service, types: ['kubernetes-types/core/v1', 'Service'] },
  'policy/v1/PodDisruptionBudget': { model: PodDisruptionBudget, types: ['kubernetes-types/policy/v1', 'PodDisruptionBudget'] },
}

type Obj = { apiVersion: string; kind: string; metadata: { name: string }; [k: string]: any }

function load(file: string): Obj[] {
  return parseAllDocuments(readFileSync(path.join(dir, file), 'utf8')).map((d) => {
    if (d.errors.length) throw new Error(`${file}: ${d.errors[0]!.message}`)
    return d.toJS() as Obj
  })
}

const files = readdirSync(dir).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml')
const objects = files.flatMap((file) => load(file).map((o) => ({ file, o })))
const key = (o: Obj) => `${o.apiVersion}/${o.kind}`

/** Schema errors of one object ('' when valid). */
function schemaErrors(o: Obj): string {
  const kind = KINDS[key(o)]
  if (!kind) return `no schema for ${key(o)}`
  try {
    new kind.model(o as never).validate()
    return ''
  } catch (e) {
    return (e as Error).message
  }
}

/** TypeScript's diagnostics for the objects written as typed literals: unknown fields, wrong shapes. */
function typeErrors(list: Obj[]): string[] {
  const source = list
    .map((o, i) => {
      const [module, type] = KINDS[key(o)]!.types
      return `import type { ${type} as T${i} } from '${module}'\nexport const o${i}: T${i} = ${JSON.stringify(o)}\n`
    })
    .join('')
  const file = path.join(root, 'test/deploy/.manifests.check.ts')
  const host = ts.createCompilerHost({ strict: true, noEmit: true, skipLibCheck: true })
  const read = host.readFile.bind(host)
  host.readFile = (f) => (path.resolve(f) === file ? source : read(f))
  const exists = host.fileExists.bind(host)
  host.fileExists = (f) => path.resolve(f) === file || exists(f)
  const options = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    types: [],
  }
  const program = ts.createProgram([file], options, host)
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, ' '))
}

t.test('every object validates against the Kubernetes schemas and has no unknown field', async (t) => {
  t.ok(objects.length >= 9, `${objects.length} objects in ${files.join(', ')}`)
  for (const { file, o } of objects) t.equal(schemaErrors(o), '', `${file}: ${o.kind} ${o.metadata.name}`)
  t.same(typeErrors(objects.map(({ o }) => o)), [], 'no unknown or mistyped field')
})

t.test('the checks refuse a broken manifest', async (t) => {
  const api = structuredClone(objects.find(({ o }) => o.kind === 'Deployment')!.o)
  api.spec.replicas = 'two'
  t.match(schemaErrors(api), /replicas must be integer/, 'a wrong type is refused by the schema')
  const typo = structuredClone(objects.find(({ o }) => o.kind === 'Deployment')!.o)
  typo.spec.template.spec.containers[0].imagePullPolicyy = 'Always'
  t.equal(schemaErrors(typo), '', 'the OpenAPI schema allows unknown fields …')
  t.match(typeErrors([typo]).join('\n'), /imagePullPolicyy/, '… the typed check does not')
  t.match(schemaErrors({ apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'x' } }), /no schema/, 'an unexpected kind')
})

t.test('the deployment the service needs', async (t) => {
  const find = (kind: string, name: string) => objects.find(({ o }) => o.kind === kind && o.metadata.name === name)?.o
  const api = find('Deployment', 'capapi-api')
  const worker = find('Deployment', 'capapi-worker')
  const cron = find('CronJob', 'capapi-maintenance')
  const migrate = find('Job', 'capapi-migrate')
  const hpa = find('HorizontalPodAutoscaler', 'capapi-api')
  const config = find('ConfigMap', 'capapi-config')
  if (!api || !worker || !cron || !migrate || !hpa || !config) return t.fail('a manifest is missing')

  const pods = [api.spec.template.spec, worker.spec.template.spec, cron.spec.jobTemplate.spec.template.spec, migrate.spec.template.spec]
  t.same(
    pods.map((p) => p.containers[0].args),
    [['--api'], ['--worker'], ['--maintenance'], ['--migrate']],
    'the four roles of the one image',
  )
  for (const p of pods) {
    t.equal(p.securityContext.runAsNonRoot, true, 'non-root')
    t.equal(p.containers[0].securityContext.readOnlyRootFilesystem, true, 'read-only root filesystem')
    t.same(
      p.containers[0].envFrom.map((e: any) => e.configMapRef?.name ?? e.secretRef?.name),
      ['capapi-config', 'capapi-secrets'],
      'settings and secrets from the ConfigMap and the Secret',
    )
  }
  t.equal(api.spec.template.spec.containers[0].readinessProbe.httpGet.path, '/readyz', 'readiness is /readyz')
  t.equal(api.spec.template.spec.containers[0].livenessProbe.httpGet.path, '/healthz', 'liveness is /healthz')
  t.same(hpa.spec.scaleTargetRef, { apiVersion: 'apps/v1', kind: 'Deployment', name: 'capapi-api' }, 'the HPA scales the API')
  t.ok(hpa.spec.minReplicas >= 2, 'at least two API replicas')
  t.equal(cron.spec.concurrencyPolicy, 'Forbid', 'one maintenance pass at a time')
  t.equal(config.data.MIGRATE_ON_BOOT, 'false', 'pods wait for the migrate Job instead of migrating')
  t.equal(config.data.MAINTENANCE_SCHEDULE, 'off', "the CronJob, not the workers' cron, runs maintenance")

  // Every variable the manifests set is one the service reads (.env.example lists them all).
  const known = new Set([...readFileSync(path.join(root, '.env.example'), 'utf8').matchAll(/^#? ?([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]))
  const secret = find('Secret', 'capapi-secrets')
  for (const name of [...Object.keys(config.data), ...Object.keys(secret?.stringData ?? {})]) t.ok(known.has(name), `${name} is documented`)
  t.same(
    load('kustomization.yaml')[0]!.resources,
    files.filter((f) => f !== 'secret.example.yaml' && f !== 'kustomization.yaml').sort((a, b) => order(a) - order(b)),
    'kustomization applies every manifest but the example Secret',
  )
})

const order = (f: string) => ['config.yaml', 'migrate-job.yaml', 'api.yaml', 'worker.yaml', 'maintenance-cronjob.yaml'].indexOf(f)
