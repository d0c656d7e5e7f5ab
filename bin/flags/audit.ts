// Auditing flags: the policy, and the log file with its rotation.
import { count, maybe, text } from './kinds.js'
import { flag } from './spec.js'

export const AUDIT_FLAGS = [
  flag({
    name: 'audit-policy-file', key: 'auditPolicyFile', kind: maybe(text), default: undefined, readsFile: true, section: 'Auditing', target: 'audit.policy',
    help: 'Path to the file that defines the audit policy configuration.'
  }),
  flag({
    name: 'audit-log-path', key: 'auditLogPath', kind: maybe(text), default: undefined, section: 'Auditing', target: 'audit.path',
    help: 'If set, all requests coming to the apiserver will be logged to this file.  \'-\' means standard out.'
  }),
  flag({
    name: 'audit-log-maxage', key: 'auditLogMaxAge', kind: count, default: 0, section: 'Auditing', target: 'audit.maxAgeDays',
    help: 'The maximum number of days to retain old audit log files based on the timestamp encoded in their filename.'
  }),
  flag({
    name: 'audit-log-maxbackup', key: 'auditLogMaxBackup', kind: count, default: 0, section: 'Auditing', target: 'audit.maxBackups',
    help: 'The maximum number of old audit log files to retain. Setting a value of 0 will mean there\'s no restriction on the number of files.'
  }),
  flag({
    name: 'audit-log-maxsize', key: 'auditLogMaxSize', kind: count, default: 0, section: 'Auditing', target: 'audit.maxSizeMB',
    help: 'The maximum size in megabytes of the audit log file before it gets rotated.'
  })
] as const
