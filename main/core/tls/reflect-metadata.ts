/**
 * The few `Reflect` metadata functions tsyringe insists on finding before it loads.
 * `@peculiar/x509` registers its ASN.1 codecs in a tsyringe container, and tsyringe refuses
 * to load without a metadata polyfill even though x509 never decorates a class (its
 * constructors take no injected parameters, so nothing is ever read back). Rather than a
 * whole polyfill in the bundle, this defines the four functions, only where no other
 * polyfill already did, kept in a WeakMap per target. Import it before `@peculiar/x509`.
 */

type MetadataKey = unknown;
type Target = object;

interface ReflectMetadata {
  getMetadata?: (key: MetadataKey, target: Target, property?: string | symbol) => unknown;
  getOwnMetadata?: (key: MetadataKey, target: Target, property?: string | symbol) => unknown;
  defineMetadata?: (key: MetadataKey, value: unknown, target: Target, property?: string | symbol) => void;
  hasMetadata?: (key: MetadataKey, target: Target, property?: string | symbol) => boolean;
}

const store = new WeakMap<Target, Map<string | symbol | undefined, Map<MetadataKey, unknown>>>();

function own(target: Target, property: string | symbol | undefined): Map<MetadataKey, unknown> | undefined {
  return store.get(target)?.get(property);
}

const reflect = Reflect as typeof Reflect & ReflectMetadata;
if (typeof reflect.getMetadata !== 'function') {
  reflect.getOwnMetadata = (key, target, property) => own(target, property)?.get(key);
  reflect.getMetadata = (key, target, property) => {
    // Like the polyfills: a class's metadata is also found through its prototype chain.
    for (let at: Target | null = target; at !== null; at = Object.getPrototypeOf(at) as Target | null) {
      const found = own(at, property);
      if (found?.has(key)) return found.get(key);
    }
    return undefined;
  };
  reflect.hasMetadata = (key, target, property) => reflect.getMetadata?.(key, target, property) !== undefined;
  reflect.defineMetadata = (key, value, target, property) => {
    let byProperty = store.get(target);
    if (!byProperty) {
      byProperty = new Map<string | symbol | undefined, Map<MetadataKey, unknown>>();
      store.set(target, byProperty);
    }
    let values = byProperty.get(property);
    if (!values) {
      values = new Map<MetadataKey, unknown>();
      byProperty.set(property, values);
    }
    values.set(key, value);
  };
}

export {};
