/** The `limit` and `offset` every list request may carry, checked at the edge. */
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { z } from 'zod';
import { MAX_PAGE, type Page } from '../store/repository.js';

const pageSchema = z.object({
  limit: z.coerce.number().int().min(1).max(MAX_PAGE).optional(),
  offset: z.coerce.number().int().min(0).optional(),
});

/** The `limit` and `offset` of a list request, or a 400 naming the bad one. */
export function pageOf(context: Context): Page {
  const parsed = pageSchema.safeParse({
    limit: context.req.query('limit'),
    offset: context.req.query('offset'),
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new HTTPException(400, {
      message: `invalid ${issue.path.join('.')}: ${issue.message} (limit 1-${MAX_PAGE}, offset 0 or more)`,
    });
  }
  return {
    ...(parsed.data.limit !== undefined ? { limit: parsed.data.limit } : {}),
    ...(parsed.data.offset !== undefined ? { offset: parsed.data.offset } : {}),
  };
}
