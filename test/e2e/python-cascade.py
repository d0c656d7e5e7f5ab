# Deletes an owner through the Python client with each propagation policy and reports what is left.
import json
import sys
import time
from kubernetes import client, config

config.load_kube_config(sys.argv[1])
ns = sys.argv[2]
v1 = client.CoreV1Api()


def names():
    return sorted(c.metadata.name for c in v1.list_namespaced_config_map(ns, label_selector='tree').items)


for policy in ['Background', 'Foreground', 'Orphan']:
    owner = v1.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name='owner', labels={'tree': 'y'})))
    ref = client.V1OwnerReference(api_version='v1', kind='ConfigMap', name='owner', uid=owner.metadata.uid, block_owner_deletion=True)
    v1.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name='dep', labels={'tree': 'y'}, owner_references=[ref])))
    v1.delete_namespaced_config_map('owner', ns, body=client.V1DeleteOptions(propagation_policy=policy))
    deadline = time.time() + 20
    want = ['dep'] if policy == 'Orphan' else []
    while (names() != want or 'owner' in [c.metadata.name for c in v1.list_namespaced_config_map(ns).items]) and time.time() < deadline:
        time.sleep(0.1)
    left = names()
    refs = None
    if 'dep' in left:
        refs = v1.read_namespaced_config_map('dep', ns).metadata.owner_references
        v1.delete_namespaced_config_map('dep', ns)
        while names():
            time.sleep(0.1)
    print(json.dumps({'policy': policy, 'left': left, 'refs': refs}), flush=True)
