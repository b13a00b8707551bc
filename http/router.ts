/** Path parameters captured by a match, by name. */
export type Params = Record<string, string>;

interface Node<R> {
  statics: Map<string, Node<R>>;
  param: { name: string; node: Node<R> } | undefined;
  routes: Map<string, R>;
}

/** Result of a lookup: a route, a path that exists under other methods, or nothing. */
export type Match<R> =
  | { kind: 'found'; route: R; params: Params }
  | { kind: 'method_not_allowed'; allowed: string[] }
  | { kind: 'not_found' };

function createNode<R>(): Node<R> {
  return { statics: new Map(), param: undefined, routes: new Map() };
}

/**
 * A segment trie over paths such as `/v1/account/tokens/:token`. Static segments win over
 * parameters; a lookup touches each segment once.
 */
export class Router<R> {
  private readonly root = createNode<R>();

  /** Adds `route` for `method` at `pattern`; a second route at the same place is a programming error. */
  add(method: string, pattern: string, route: R): void {
    let node = this.root;
    for (const segment of pattern.split('/').filter(Boolean)) {
      if (segment.startsWith(':')) {
        const name = segment.slice(1);
        if (node.param && node.param.name !== name) throw new Error(`conflicting parameter :${name} at ${pattern}`);
        node.param ??= { name, node: createNode<R>() };
        node = node.param.node;
      } else {
        let next = node.statics.get(segment);
        if (!next) node.statics.set(segment, (next = createNode<R>()));
        node = next;
      }
    }
    if (node.routes.has(method)) throw new Error(`duplicate route ${method} ${pattern}`);
    node.routes.set(method, route);
  }

  /** Finds the route for `method` and `path`. */
  match(method: string, path: string): Match<R> {
    const params: Params = {};
    const node = this.walk(this.root, path.split('/').filter(Boolean), 0, params);
    if (!node || node.routes.size === 0) return { kind: 'not_found' };
    const route = node.routes.get(method);
    if (route !== undefined) return { kind: 'found', route, params };
    return { kind: 'method_not_allowed', allowed: [...node.routes.keys()] };
  }

  private walk(node: Node<R>, segments: string[], index: number, params: Params): Node<R> | undefined {
    if (index === segments.length) return node;
    const segment = segments[index]!;
    const next = node.statics.get(segment);
    if (next) {
      const found = this.walk(next, segments, index + 1, params);
      if (found && found.routes.size > 0) return found;
    }
    if (node.param) {
      let value: string;
      try {
        value = decodeURIComponent(segment);
      } catch {
        return undefined;
      }
      const found = this.walk(node.param.node, segments, index + 1, params);
      if (found && found.routes.size > 0) {
        params[node.param.name] = value;
        return found;
      }
    }
    return undefined;
  }
}
