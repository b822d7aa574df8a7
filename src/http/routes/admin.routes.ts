import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { CASP_IMPORT_MAX_CHARS } from '../../services/casp-directory.service.ts';
import { LIST_IMPORT_MAX_BYTES } from '../../services/sanctions-lists.service.ts';
import { NestedError } from '../schemas/common.schema.ts';

/**
 * The operator API: how the CLI reaches a server that holds the embedded store. Authorised by the
 * operator token only; a client's API key never opens it.
 */
export const adminRoutes =
  (deps: {
    commands: (name: string, args: unknown, actor: string) => Promise<unknown>;
  }): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.post(
      '/api/admin/commands/:name',
      {
        config: { auth: 'operator', errorFormat: 'nested' },
        // Imports (casps import: up to 64 MiB; lists import: up to 128 MiB of files) carry their
        // files as JSON strings, and escaping can double them.
        bodyLimit: Math.max(2 * CASP_IMPORT_MAX_CHARS, 2 * LIST_IMPORT_MAX_BYTES) + 1024 * 1024,
        schema: {
          hide: true,
          params: Type.Object({ name: Type.String({ maxLength: 64 }) }),
          body: Type.Object({ args: Type.Unknown(), actor: Type.Optional(Type.String({ maxLength: 128 })) }),
          response: {
            200: Type.Object({ result: Type.Unknown() }),
            400: NestedError,
            401: NestedError,
            404: NestedError,
          },
        },
      },
      async (req) => ({
        result: await deps.commands(req.params.name, req.body.args ?? {}, req.body.actor ?? 'operator'),
      }),
    );
  };
