// What a request selects below the field being resolved, for resolvers that read only what is asked
// (an entity's children loaded with their parents, an aggregate's measures): fields by name through
// fragments, as this request's variables keep them (`@skip`/`@include`: REST's documents flag every
// part of an answer with `@include`).
import { getDirectiveValues, GraphQLIncludeDirective, GraphQLSkipDirective, type GraphQLResolveInfo, type SelectionNode, type SelectionSetNode } from 'graphql';

/** Whether `@skip`/`@include` keep a selection for this request's variables. */
const kept = (s: SelectionNode, info: GraphQLResolveInfo) =>
  getDirectiveValues(GraphQLSkipDirective, s, info.variableValues)?.if !== true && getDirectiveValues(GraphQLIncludeDirective, s, info.variableValues)?.if !== false;

/** The fields of `sets` kept for this request, fragments included, by name with their nodes. */
function fieldsOf(sets: readonly (SelectionSetNode | undefined)[], info: GraphQLResolveInfo, out = new Map<string, SelectionSetNode[]>()): Map<string, SelectionSetNode[]> {
  for (const s of sets.flatMap((set) => set?.selections ?? [])) {
    if (!kept(s, info)) continue;
    if (s.kind === 'Field') out.set(s.name.value, [...(out.get(s.name.value) ?? []), ...(s.selectionSet ? [s.selectionSet] : [])]);
    else fieldsOf([s.kind === 'InlineFragment' ? s.selectionSet : info.fragments[s.name.value]?.selectionSet], info, out);
  }
  return out;
}

/** The names selected at `path` below the field being resolved: `selectedBelow(info, ['groups', 'sum'])` gives the summed fields asked. */
export function selectedBelow(info: GraphQLResolveInfo, path: readonly string[] = []): Set<string> {
  let sets: readonly (SelectionSetNode | undefined)[] = info.fieldNodes.map((n) => n.selectionSet);
  for (const name of path) sets = fieldsOf(sets, info).get(name) ?? [];
  return new Set(fieldsOf(sets, info).keys());
}
