// Storage errors rendered as the reference server's Status errors, at the store's boundary.
import { ApiError, alreadyExists, conflict, expired, notFound, OPTIMISTIC_LOCK_MESSAGE, serviceUnavailable, tooLargeResourceVersion, type GroupResource } from '../../resources/status.js'
import { StorageError } from '../../storage/interface.js'

export function storageErrorToStatus (err: unknown, gr: GroupResource, name: string, currentRevision: number): Error {
  if (err instanceof ApiError) return err
  if (err instanceof StorageError) {
    switch (err.code) {
      case 'KeyExists': return alreadyExists(gr, name)
      case 'NotFound': return notFound(gr, name)
      case 'Conflict': return conflict(gr, name, OPTIMISTIC_LOCK_MESSAGE)
      case 'Unavailable': return serviceUnavailable('the storage is unavailable; please try again')
      case 'Compacted': return expired(err.message)
      case 'TooLarge': return tooLargeResourceVersion(err.revision ?? 0, currentRevision)
    }
  }
  return err as Error
}
