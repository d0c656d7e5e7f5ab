# The Python client's typed workload APIs against a started server: AppsV1Api (a Deployment
# created, read, scaled through its scale subresource, its image patched, listed cluster-wide,
# deleted with its ReplicaSet collected), BatchV1Api (a Job and a CronJob with their defaults)
# and AutoscalingV1Api (an HPA created in v1, read back in v2; Debian's client has no V2 API, so
# that read is a raw call). Prints one JSON line per step.
import json
import sys
import time

from kubernetes import client, config
from kubernetes.client.rest import ApiException

config.load_kube_config(config_file=sys.argv[1])
api_client = client.ApiClient()
NS = 'default'
apps = client.AppsV1Api(api_client)
batch = client.BatchV1Api(api_client)
hpa1 = client.AutoscalingV1Api(api_client)


def out(step, **fields):
    print(json.dumps({'step': step, **fields}), flush=True)


def failure(e):
    body = json.loads(e.body)
    return {'status': e.status, 'reason': body.get('reason'), 'message': body.get('message')}


def template(labels, restart=None, image='nginx:1.27'):
    spec = client.V1PodSpec(containers=[client.V1Container(name='web', image=image)], restart_policy=restart)
    return client.V1PodTemplateSpec(metadata=client.V1ObjectMeta(labels=labels), spec=spec)


deployment = client.V1Deployment(
    metadata=client.V1ObjectMeta(name='py-web'),
    spec=client.V1DeploymentSpec(selector=client.V1LabelSelector(match_labels={'app': 'py-web'}), template=template({'app': 'py-web'})))
created = apps.create_namespaced_deployment(NS, deployment)
out('deployment created', replicas=created.spec.replicas, strategy=created.spec.strategy.type,
    maxSurge=created.spec.strategy.rolling_update.max_surge, revisionHistoryLimit=created.spec.revision_history_limit,
    generation=created.metadata.generation)

scale = apps.read_namespaced_deployment_scale('py-web', NS)
out('scale read', kind=scale.kind, replicas=scale.spec.replicas, selector=scale.status.selector)
scale.spec.replicas = 4
scaled = apps.replace_namespaced_deployment_scale('py-web', NS, scale)
out('scale replaced', replicas=scaled.spec.replicas, deployment=apps.read_namespaced_deployment('py-web', NS).spec.replicas)
patched = apps.patch_namespaced_deployment_scale('py-web', NS, {'spec': {'replicas': 2}})
out('scale patched', replicas=patched.spec.replicas)

image = apps.patch_namespaced_deployment('py-web', NS, {'spec': {'template': {'spec': {'containers': [{'name': 'web', 'image': 'nginx:1.28'}]}}}})
out('image patched', images=[c.image for c in image.spec.template.spec.containers], generation=image.metadata.generation)

try:
    apps.create_namespaced_deployment(NS, client.V1Deployment(
        metadata=client.V1ObjectMeta(name='mismatch'),
        spec=client.V1DeploymentSpec(selector=client.V1LabelSelector(match_labels={'app': 'a'}), template=template({'app': 'b'}))))
    out('mismatch refused', status=None)
except ApiException as e:
    out('mismatch refused', **failure(e))

# A ReplicaSet the deployment owns, as a controller manager would make it: deleted with it.
owned = apps.create_namespaced_replica_set(NS, client.V1ReplicaSet(
    metadata=client.V1ObjectMeta(name='py-web-1', owner_references=[client.V1OwnerReference(
        api_version='apps/v1', kind='Deployment', name='py-web', uid=created.metadata.uid, controller=True, block_owner_deletion=True)]),
    spec=client.V1ReplicaSetSpec(selector=client.V1LabelSelector(match_labels={'app': 'py-web'}), template=template({'app': 'py-web'}))))
listed = apps.list_deployment_for_all_namespaces()
out('listed', kind=listed.kind if hasattr(listed, 'kind') else None, names=sorted(d.metadata.name for d in listed.items))
apps.delete_namespaced_deployment('py-web', NS, propagation_policy='Foreground')
deadline = time.time() + 20
gone = False
while time.time() < deadline and not gone:
    try:
        apps.read_namespaced_replica_set('py-web-1', NS)
        time.sleep(0.2)
    except ApiException as e:
        gone = e.status == 404
out('owned collected', gone=gone)

job = batch.create_namespaced_job(NS, client.V1Job(metadata=client.V1ObjectMeta(name='py-job'),
                                                   spec=client.V1JobSpec(template=template(None, 'Never', 'perl:5.34'))))
out('job created', completions=job.spec.completions, parallelism=job.spec.parallelism, backoffLimit=job.spec.backoff_limit,
    completionMode=job.spec.completion_mode, selected=job.spec.selector.match_labels.get('batch.kubernetes.io/controller-uid') == job.metadata.uid)
cron = batch.create_namespaced_cron_job(NS, client.V1CronJob(metadata=client.V1ObjectMeta(name='py-cron'),
                                                             spec=client.V1CronJobSpec(schedule='@hourly', job_template=client.V1JobTemplateSpec(
                                                                 spec=client.V1JobSpec(template=template(None, 'OnFailure')))),))
out('cronjob created', concurrencyPolicy=cron.spec.concurrency_policy, successful=cron.spec.successful_jobs_history_limit,
    failed=cron.spec.failed_jobs_history_limit, suspend=cron.spec.suspend)

hpa = hpa1.create_namespaced_horizontal_pod_autoscaler(NS, client.V1HorizontalPodAutoscaler(
    metadata=client.V1ObjectMeta(name='py-hpa'),
    spec=client.V1HorizontalPodAutoscalerSpec(
        scale_target_ref=client.V1CrossVersionObjectReference(api_version='apps/v1', kind='Deployment', name='py-web'),
        max_replicas=5, target_cpu_utilization_percentage=60)))
out('hpa v1 created', minReplicas=hpa.spec.min_replicas, target=hpa.spec.target_cpu_utilization_percentage)
v2 = api_client.call_api(f'/apis/autoscaling/v2/namespaces/{NS}/horizontalpodautoscalers/py-hpa', 'GET',
                         response_type='object', auth_settings=['BearerToken'], _return_http_data_only=True)
out('hpa v2 read', apiVersion=v2['apiVersion'], metrics=v2['spec']['metrics'], maxReplicas=v2['spec']['maxReplicas'])
