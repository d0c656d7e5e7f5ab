# The Python client's dynamic server_side_apply against a started server: create, merge, a
# conflict (409) and a forced apply. Prints one JSON line per step.
import json
import sys

from kubernetes import client, config, dynamic
from kubernetes.client.rest import ApiException

config.load_kube_config(config_file=sys.argv[1])
api = dynamic.DynamicClient(client.ApiClient()).resources.get(api_version='v1', kind='ConfigMap')


def manifest(data):
    # As text: clients before 24 send only text bodies with the apply content type.
    return json.dumps({'apiVersion': 'v1', 'kind': 'ConfigMap', 'metadata': {'name': 'py-applied', 'namespace': 'default'}, 'data': data})


def step(name, obj):
    d = obj.to_dict()
    print(json.dumps({'step': name, 'data': d.get('data') or {},
                      'managers': [[e['manager'], e['operation']] for e in d['metadata']['managedFields']]}), flush=True)


step('created', api.server_side_apply(body=manifest({'a': '1'}), name='py-applied', namespace='default', field_manager='python'))
step('merged', api.server_side_apply(body=manifest({'a': '1', 'b': '2'}), name='py-applied', namespace='default', field_manager='python'))
try:
    api.server_side_apply(body=manifest({'a': 'x'}), name='py-applied', namespace='default', field_manager='other')
    print(json.dumps({'step': 'conflict', 'status': 200}), flush=True)
except ApiException as e:
    print(json.dumps({'step': 'conflict', 'status': e.status, 'message': json.loads(e.body)['message']}), flush=True)
step('forced', api.server_side_apply(body=manifest({'a': 'x'}), name='py-applied', namespace='default', field_manager='other', force_conflicts=True))
