// Every behaviour, in the order they run on one served version: each may rely on the ones before
// (the object the create made), and the deletes come last.
import type { Behaviour } from './behaviour.js'
import { create, deleteCollection, deleteCollectionAnswer, deleteObject, fieldSelector, get, list, ownFieldSelectors, update } from './lifecycle.js'
import { watch } from './watch.js'
import { upstreamSpelling } from './upstream-spelling.js'
import { emptiedFinalizers, jsonPatch, mergePatch, serverSideApply, strategicListMerge, strategicMergePatch } from './patches.js'
import { mainResourceKeepsStatus, statusWriteChangesOnlyStatus } from './status.js'
import { protobufRoundTrip, protobufVirtualAnswer, protobufVirtualBody, table } from './representations.js'
import { dryRunCreate, dryRunDelete, dryRunUpdate } from './dry-run.js'
import { aggregatedDiscovery, discovery, openApiV2, openApiV3 } from './surface.js'
import { refusedVerbs, virtualCreate } from './verbs.js'

export const BEHAVIOURS: readonly Behaviour[] = [
  discovery,
  aggregatedDiscovery,
  openApiV2,
  openApiV3,
  virtualCreate,
  protobufVirtualBody,
  protobufVirtualAnswer,
  create,
  get,
  list,
  watch,
  upstreamSpelling,
  fieldSelector,
  ownFieldSelectors,
  table,
  update,
  jsonPatch,
  mergePatch,
  strategicMergePatch,
  strategicListMerge,
  emptiedFinalizers,
  serverSideApply,
  mainResourceKeepsStatus,
  statusWriteChangesOnlyStatus,
  protobufRoundTrip,
  dryRunCreate,
  dryRunUpdate,
  dryRunDelete,
  deleteCollection,
  deleteCollectionAnswer,
  deleteObject,
  refusedVerbs
]
