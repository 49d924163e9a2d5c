// A module's services: long-lived parts a module makes once per app from its description (media
// storage), found by a typed key. The app makes them from its module list (modules/composition.ts),
// so a request reaches a module's service through its scope without the core naming the module.

/** Names a service and its type. */
export interface ServiceKey<T> {
  readonly name: string;
  /** Never set: carries the service's type. */
  readonly type?: T;
}

export function serviceKey<T>(name: string): ServiceKey<T> {
  return Object.freeze({ name });
}

/** The services of an app's modules. */
export interface Services {
  /** The service under `key`; throws when no module of the app provides it (a bug, not a request's fault). */
  get<T>(key: ServiceKey<T>): T;
}
