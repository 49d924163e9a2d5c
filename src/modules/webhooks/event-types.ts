// Event types and the patterns endpoints subscribe with. An *event type* is `<entity>:<verb>`: entity
// events are `<slug>:created`, `<slug>:updated` and `<slug>:deleted` (`tasks:created`, `notes:deleted`
// for a child), and code that schedules `webhook:send` itself may use other verbs or names. An
// endpoint lists *patterns*: an event type, `<entity>:*` (every event of that entity) or `*` (all).

/** What an endpoint may list in `eventTypes`. */
export const eventPattern = /^(\*|[a-z][a-z0-9_-]{0,62}:(\*|[a-z][a-z0-9_-]{0,62}))$/;

/** The patterns that select `eventType`: itself, `<entity>:*` and `*` (an endpoint listing any of them gets it). */
export function patternsFor(eventType: string): string[] {
  const colon = eventType.indexOf(':');
  return colon > 0 ? ['*', `${eventType.slice(0, colon)}:*`, eventType] : ['*', eventType];
}
