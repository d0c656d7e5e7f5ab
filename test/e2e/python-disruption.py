# The Python client's typed APIs for the scheduling and disruption paths and the networking
# kinds, against a started server: PolicyV1Api (a PodDisruptionBudget whose status the
# disruption controller keeps), CoreV1Api evictions (one allowed, the next refused with 429),
# a pod bound through pods/binding (once: the second is a conflict), DiscoveryV1Api endpoint
# slices following a Service's pods, NetworkingV1Api network policies. One JSON line per step.
import json
import sys
import time

from kubernetes import client, config
from kubernetes.client.rest import ApiException

config.load_kube_config(config_file=sys.argv[1])
api_client = client.ApiClient()
NS = 'default'
core = client.CoreV1Api(api_client)
policy = client.PolicyV1Api(api_client)
discovery = client.DiscoveryV1Api(api_client)
networking = client.NetworkingV1Api(api_client)


def out(step, **fields):
    print(json.dumps({'step': step, **fields}), flush=True)


def failure(e):
    body = json.loads(e.body)
    return {'status': e.status, 'reason': body.get('reason'), 'message': body.get('message')}


def eventually(check, timeout=20):
    deadline = time.time() + timeout
    while True:
        value = check()
        if value is not None or time.time() > deadline:
            return value
        time.sleep(0.2)


def pod(name, node=None):
    return client.V1Pod(metadata=client.V1ObjectMeta(name=name, labels={'app': 'py-db'}),
                        spec=client.V1PodSpec(node_name=node, containers=[client.V1Container(name='db', image='postgres:17', ports=[client.V1ContainerPort(container_port=5432, name='pg')])]))


core.create_node(client.V1Node(metadata=client.V1ObjectMeta(name='py-node')))
for i, name in enumerate(['py-db-1', 'py-db-2']):
    core.create_namespaced_pod(NS, pod(name, 'py-node'))
    ip = '10.244.1.%d' % (i + 1)
    core.patch_namespaced_pod_status(name, NS, {'status': {'phase': 'Running', 'podIP': ip, 'podIPs': [{'ip': ip}], 'conditions': [{'type': 'Ready', 'status': 'True'}]}})

budget = policy.create_namespaced_pod_disruption_budget(NS, client.V1PodDisruptionBudget(
    metadata=client.V1ObjectMeta(name='py-db'),
    spec=client.V1PodDisruptionBudgetSpec(min_available=1, selector=client.V1LabelSelector(match_labels={'app': 'py-db'}))))
out('budget created', minAvailable=budget.spec.min_available, generation=budget.metadata.generation)
allowed = eventually(lambda: (lambda b: b if b.status is not None and b.status.disruptions_allowed == 1 else None)(policy.read_namespaced_pod_disruption_budget_status('py-db', NS)))
out('budget status', currentHealthy=allowed.status.current_healthy, desiredHealthy=allowed.status.desired_healthy, expectedPods=allowed.status.expected_pods)

eviction = client.V1Eviction(metadata=client.V1ObjectMeta(name='py-db-1', namespace=NS))
core.create_namespaced_pod_eviction('py-db-1', NS, eviction)
gone = eventually(lambda: True if 'py-db-1' not in [p.metadata.name for p in core.list_namespaced_pod(NS, label_selector='app=py-db').items] else None)
out('first evicted', gone=gone)
try:
    core.create_namespaced_pod_eviction('py-db-2', NS, client.V1Eviction(metadata=client.V1ObjectMeta(name='py-db-2', namespace=NS)))
    out('second refused', status=None)
except ApiException as e:
    refused = failure(e)
    out('second refused', **refused, retryAfter=e.headers.get('Retry-After') if e.headers else None)

core.create_namespaced_pod(NS, pod('py-pending'))
binding = client.V1Binding(metadata=client.V1ObjectMeta(name='py-pending'), target=client.V1ObjectReference(api_version='v1', kind='Node', name='py-node'))
# The answer is a Status, which this client would read as a Binding: read it raw.
bound = core.create_namespaced_pod_binding('py-pending', NS, binding, _preload_content=False)
out('bound', status=bound.status, node=core.read_namespaced_pod('py-pending', NS).spec.node_name)
try:
    core.create_namespaced_pod_binding('py-pending', NS, binding, _preload_content=False)
    out('rebind refused', status=None)
except ApiException as e:
    out('rebind refused', **failure(e))

core.create_namespaced_service(NS, client.V1Service(
    metadata=client.V1ObjectMeta(name='py-db'),
    spec=client.V1ServiceSpec(selector={'app': 'py-db'}, ports=[client.V1ServicePort(name='pg', port=5432, target_port='pg')])))


def ready_addresses():
    slices = discovery.list_namespaced_endpoint_slice(NS, label_selector='kubernetes.io/service-name=py-db').items
    found = sorted(a for s in slices for e in (s.endpoints or []) for a in e.addresses if e.conditions.ready)
    return found if found == ['10.244.1.2'] else None


out('slices', addresses=eventually(ready_addresses))

netpol = networking.create_namespaced_network_policy(NS, client.V1NetworkPolicy(
    metadata=client.V1ObjectMeta(name='py-db'),
    spec=client.V1NetworkPolicySpec(pod_selector=client.V1LabelSelector(match_labels={'app': 'py-db'}),
                                    ingress=[client.V1NetworkPolicyIngressRule(ports=[client.V1NetworkPolicyPort(port=5432)])])))
out('netpol created', policyTypes=netpol.spec.policy_types, protocol=netpol.spec.ingress[0].ports[0].protocol)
