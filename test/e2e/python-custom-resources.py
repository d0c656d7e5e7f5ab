# The Python client against a started server with a real project's CustomResourceDefinition
# (the YAML file given): the definition created through ApiextensionsV1Api and waited on until
# Established, then a ServiceMonitor driven through the dynamic client and through
# CustomObjectsApi: create, get, list, merge patch, status patch, a refused invalid object and
# delete. Prints one JSON line per step.
import json
import sys
import time

import yaml
from kubernetes import client, config, dynamic
from kubernetes.client.rest import ApiException

config.load_kube_config(config_file=sys.argv[1])
api_client = client.ApiClient()
NS = 'default'
GROUP, VERSION, PLURAL = 'monitoring.coreos.com', 'v1', 'servicemonitors'


def out(step, **fields):
    print(json.dumps({'step': step, **fields}), flush=True)


def failure(e):
    body = json.loads(e.body)
    return {'status': e.status, 'reason': body.get('reason'), 'message': body.get('message')}


def monitor(name, app, **spec):
    return {'apiVersion': f'{GROUP}/{VERSION}', 'kind': 'ServiceMonitor',
            'metadata': {'name': name, 'namespace': NS, 'labels': {'client': 'python'}},
            'spec': {'selector': {'matchLabels': {'app': app}}, 'endpoints': [{'port': 'http'}], **spec}}


# The definition, as a user creates it from the project's manifest, then waits for it.
with open(sys.argv[2]) as f:
    crd = yaml.safe_load(f)
extensions = client.ApiextensionsV1Api(api_client)
created = extensions.create_custom_resource_definition(crd)
deadline = time.time() + 20
while True:
    got = extensions.read_custom_resource_definition(crd['metadata']['name'])
    if any(c.type == 'Established' and c.status == 'True' for c in (got.status.conditions or [])):
        break
    if time.time() > deadline:
        raise SystemExit('the definition was not established')
    time.sleep(0.1)
out('established', name=got.metadata.name, kind=got.status.accepted_names.kind, shortNames=got.status.accepted_names.short_names)

# The dynamic client finds the kind through discovery.
dyn = dynamic.DynamicClient(api_client)
monitors = dyn.resources.get(api_version=f'{GROUP}/{VERSION}', kind='ServiceMonitor')
out('discovered', name=monitors.name, namespaced=monitors.namespaced, shortNames=monitors.short_names,
    categories=monitors.categories, subresources=sorted(monitors.subresources.keys()))

obj = monitors.create(body=monitor('dyn', 'web'), namespace=NS)
out('dynamic created', name=obj.metadata.name, generation=obj.metadata.generation, spec=obj.to_dict()['spec'])
obj = monitors.get(name='dyn', namespace=NS)
out('dynamic got', kind=obj.kind, apiVersion=obj.apiVersion, port=obj.spec.endpoints[0].port)
listed = monitors.get(namespace=NS, label_selector='client=python')
out('dynamic listed', kind=listed.kind, names=[i.metadata.name for i in listed.items])
obj = monitors.patch(body={'spec': {'jobLabel': 'app'}}, name='dyn', namespace=NS, content_type='application/merge-patch+json')
out('dynamic patched', jobLabel=obj.spec.jobLabel, generation=obj.metadata.generation)
status = {'bindings': [{'group': GROUP, 'resource': 'prometheuses', 'name': 'k8s', 'namespace': 'monitoring'}]}
obj = monitors.status.patch(body={'status': status}, name='dyn', namespace=NS, content_type='application/merge-patch+json')
out('dynamic status patched', status=obj.to_dict()['status'], generation=obj.metadata.generation)
try:
    monitors.patch(body={'spec': {'jobLabel': 'x'}}, name='dyn', namespace=NS)
    out('dynamic strategic patch', status=200)
except ApiException as e:
    out('dynamic strategic patch', **failure(e))
deleted = monitors.delete(name='dyn', namespace=NS)
out('dynamic deleted', kind=deleted.kind, status=deleted.status)

# CustomObjectsApi names the group, version and plural itself.
custom = client.CustomObjectsApi(api_client)
obj = custom.create_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, monitor('typed', 'api'))
out('custom created', name=obj['metadata']['name'], spec=obj['spec'])
obj = custom.get_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, 'typed')
out('custom got', kind=obj['kind'], uid=bool(obj['metadata'].get('uid')))
listed = custom.list_namespaced_custom_object(GROUP, VERSION, NS, PLURAL)
out('custom listed', kind=listed['kind'], names=[i['metadata']['name'] for i in listed['items']])
obj = custom.patch_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, 'typed', {'metadata': {'labels': {'patched': 'yes'}}, 'spec': {'targetLabels': ['team']}})
out('custom patched', labels=obj['metadata']['labels'], targetLabels=obj['spec']['targetLabels'])
obj = custom.patch_namespaced_custom_object_status(GROUP, VERSION, NS, PLURAL, 'typed', {'status': status})
out('custom status patched', status=obj['status'])
try:
    custom.create_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, {
        'apiVersion': f'{GROUP}/{VERSION}', 'kind': 'ServiceMonitor', 'metadata': {'name': 'invalid'},
        'spec': {'endpoints': [{'port': 'http', 'scheme': 'ftp'}]}})
    out('custom invalid', status=201)
except ApiException as e:
    out('custom invalid', **failure(e))
deleted = custom.delete_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, 'typed')
out('custom deleted', kind=deleted['kind'], status=deleted['status'])
try:
    custom.get_namespaced_custom_object(GROUP, VERSION, NS, PLURAL, 'typed')
    out('custom gone', status=200)
except ApiException as e:
    out('custom gone', **failure(e))
