/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
/** Values of Order.status. */
export type OrderStatus =
  | 'DRAFT'
  | 'PAID'
  | 'PLACED';

/** Values of Task.priority. */
export type TaskPriority =
  | 'HIGH'
  | 'LOW'
  | 'MEDIUM'
  | 'URGENT';

export type TaskByIdQueryVariables = Exact<{
  id: string | number;
}>;


export type TaskByIdQuery = { task: { id: string, title: string } };

export type PayOrderFromClientMutationVariables = Exact<{
  id: string | number;
}>;


export type PayOrderFromClientMutation = { payOrder: { number: string | null, status: OrderStatus | null, paidAt: string | null } };

export type OpenTasksQueryVariables = Exact<{
  limit?: number | null | undefined;
}>;


export type OpenTasksQuery = { tasks: { total: number, items: Array<{ id: string, title: string, priority: TaskPriority | null }> } };

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

export const TaskByIdDocument = new TypedDocumentString(`
    query TaskById($id: ID!) {
  task(id: $id) {
    id
    title
  }
}
    `) as unknown as TypedDocumentString<TaskByIdQuery, TaskByIdQueryVariables>;
export const PayOrderFromClientDocument = new TypedDocumentString(`
    mutation PayOrderFromClient($id: ID!) {
  payOrder(id: $id) {
    number
    status
    paidAt
  }
}
    `) as unknown as TypedDocumentString<PayOrderFromClientMutation, PayOrderFromClientMutationVariables>;
export const OpenTasksDocument = new TypedDocumentString(`
    query OpenTasks($limit: Int) {
  tasks(limit: $limit, where: {status: {eq: TODO}}) {
    total
    items {
      id
      title
      priority
    }
  }
}
    `) as unknown as TypedDocumentString<OpenTasksQuery, OpenTasksQueryVariables>;