/** Reading a request's JSON body at the edge: parsed, checked against a schema, or a 400. */
import { HTTPException } from 'hono/http-exception';
import type { z } from 'zod';
import { FIRST_ISSUE } from '../trace/format.js';

/** The body as JSON; an empty body reads as `{}`. */
async function jsonBody(request: Request): Promise<unknown> {
  const text = await request.text();
  if (text.trim().length === 0) return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new HTTPException(400, { message: 'the request body is not valid JSON' });
  }
}

/** The body checked against a schema, or a 400 naming the first problem. */
export async function validBody<Schema extends z.ZodType>(
  request: Request,
  schema: Schema,
  what: string,
): Promise<z.infer<Schema>> {
  const parsed = schema.safeParse(await jsonBody(request), FIRST_ISSUE);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new HTTPException(400, {
      message: `invalid ${what}: ${issue.path.join('.') || 'body'}: ${issue.message}`,
    });
  }
  return parsed.data;
}
