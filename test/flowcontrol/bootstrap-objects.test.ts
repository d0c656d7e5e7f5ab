// The bootstrap priority levels and flow schemas are the reference's, field by field and in its
// order: the server's lists against a transcription of upstream's bootstrap package.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { MANDATORY_FLOW_SCHEMAS, MANDATORY_PRIORITY_LEVELS, SUGGESTED_FLOW_SCHEMAS, SUGGESTED_PRIORITY_LEVELS } from '../../resources/flowcontrol-bootstrap.js'
import {
  REFERENCE_MANDATORY_FLOW_SCHEMAS, REFERENCE_MANDATORY_PRIORITY_LEVELS, REFERENCE_SUGGESTED_FLOW_SCHEMAS, REFERENCE_SUGGESTED_PRIORITY_LEVELS
} from '../fixtures/flowcontrol-reference-bootstrap.js'

test('the mandatory objects are the reference\'s', () => {
  assert.deepEqual(MANDATORY_PRIORITY_LEVELS, REFERENCE_MANDATORY_PRIORITY_LEVELS)
  assert.deepEqual(MANDATORY_FLOW_SCHEMAS, REFERENCE_MANDATORY_FLOW_SCHEMAS)
})

test('the suggested objects are the reference\'s', () => {
  assert.deepEqual(SUGGESTED_PRIORITY_LEVELS, REFERENCE_SUGGESTED_PRIORITY_LEVELS)
  assert.deepEqual(SUGGESTED_FLOW_SCHEMAS, REFERENCE_SUGGESTED_FLOW_SCHEMAS)
})
