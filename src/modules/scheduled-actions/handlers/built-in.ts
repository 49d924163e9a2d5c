// The payloads of the action types modules declare, as callers write them: scheduleAction checks them
// at compile time. Each owner adds its types by augmenting ActionPayloads beside its handler
// (webhooks/send-action.ts, entities/publish-action.ts, accounts/refresh-tokens-action.ts), so this
// module imports none of them.

// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by augmentation, see above
export interface ActionPayloads {}

