// Page-numbered lists (`page`, `limit`): what a page says of itself, computed in one place.

export interface Pagination {
  page: number;
  limit: number;
  total: number;
  totalPages: number;
}

export interface Page<T> extends Pagination {
  items: T[];
  /** Whether a page follows this one. */
  hasMore: boolean;
}

/** Page `page` of `total` items, `limit` a page. */
export function paginationOf(page: number, limit: number, total: number): Pagination {
  return { page, limit, total, totalPages: Math.ceil(total / limit) };
}

/** `items`, page `page` of `total` items, `limit` a page. */
export function pageOf<T>(items: T[], total: number, page: number, limit: number): Page<T> {
  const pagination = paginationOf(page, limit, total);
  return { items, ...pagination, hasMore: page < pagination.totalPages };
}
