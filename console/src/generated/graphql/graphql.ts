/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
export type TeamsQueryVariables = Exact<{ [key: string]: never; }>;


export type TeamsQuery = { teams: { items: Array<{ id: string, name: string, slug: string, userRole: string | null, memberCount: number }> } };

export type SwitchTeamMutationVariables = Exact<{
  teamId: string | number;
}>;


export type SwitchTeamMutation = { switchTeam: { activeTeamId: string } };

export class TypedDocumentString<TResult, TVariables>
  extends String
  implements DocumentTypeDecoration<TResult, TVariables>
{
  __apiType?: NonNullable<DocumentTypeDecoration<TResult, TVariables>['__apiType']>;
  private value: string;
  public __meta__?: Record<string, any> | undefined;

  constructor(value: string, __meta__?: Record<string, any> | undefined) {
    super(value);
    this.value = value;
    this.__meta__ = __meta__;
  }

  override toString(): string & DocumentTypeDecoration<TResult, TVariables> {
    return this.value;
  }
}

export const TeamsDocument = new TypedDocumentString(`
    query Teams {
  teams(limit: 100) {
    items {
      id
      name
      slug
      userRole
      memberCount
    }
  }
}
    `) as unknown as TypedDocumentString<TeamsQuery, TeamsQueryVariables>;
export const SwitchTeamDocument = new TypedDocumentString(`
    mutation SwitchTeam($teamId: ID!) {
  switchTeam(teamId: $teamId) {
    activeTeamId
  }
}
    `) as unknown as TypedDocumentString<SwitchTeamMutation, SwitchTeamMutationVariables>;