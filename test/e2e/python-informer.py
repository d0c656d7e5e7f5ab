# A list-and-watch loop with the Python client, as informers do: list, watch from the list's
# resourceVersion, re-watch after each timeout, and list again after 410 Gone. Prints one JSON
# line per observed change.
import json
import sys

from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException

config.load_kube_config(config_file=sys.argv[1])
namespace, selector = sys.argv[2], sys.argv[3]
api = client.CoreV1Api()
known = {}


def emit(**fields):
    print(json.dumps(fields), flush=True)


def relist():
    listed = api.list_namespaced_config_map(namespace, label_selector=selector)
    current = {item.metadata.name: item.data or {} for item in listed.items}
    for name in sorted(set(known) - set(current)):
        emit(event='DELETED', name=name)
    for name, data in sorted(current.items()):
        if known.get(name) != data:
            emit(event='ADDED' if name not in known else 'MODIFIED', name=name, data=data)
    known.clear()
    known.update(current)
    emit(event='LISTED', resourceVersion=listed.metadata.resource_version)
    return listed.metadata.resource_version


rv = relist()
while True:
    try:
        for change in watch.Watch().stream(api.list_namespaced_config_map, namespace, label_selector=selector,
                                           resource_version=rv, timeout_seconds=1):
            obj = change['object']
            rv = obj.metadata.resource_version
            if change['type'] == 'DELETED':
                known.pop(obj.metadata.name, None)
            else:
                known[obj.metadata.name] = obj.data or {}
            emit(event=change['type'], name=obj.metadata.name, data=obj.data or {})
    except ApiException as err:
        if err.status != 410:
            raise
        emit(event='GONE')
        rv = relist()
