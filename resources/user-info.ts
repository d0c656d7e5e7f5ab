// Who a request acts as: the user every authenticator produces and every later stage reads.

export interface UserInfo {
  username: string
  uid?: string
  groups: string[]
  extra?: Record<string, string[]>
}

export const AUTHENTICATED_GROUP = 'system:authenticated'
/** Members hold every permission, whatever the authorizers say (escalation checks too). */
export const PRIVILEGED_GROUP = 'system:masters'
/** The identity the server's own start-up writes use (default roles, aggregation). */
export const APISERVER_USER: UserInfo = { username: 'system:apiserver', groups: [PRIVILEGED_GROUP, AUTHENTICATED_GROUP] }

/** Adds system:authenticated unless the user is anonymous or already has it. */
export function withAuthenticatedGroup (user: UserInfo): UserInfo {
  const groups = user.groups.includes(AUTHENTICATED_GROUP) || user.username === 'system:anonymous'
    ? user.groups
    : [...user.groups, AUTHENTICATED_GROUP]
  return { ...user, groups }
}
