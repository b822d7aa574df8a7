import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { CHAIN_SEQ_HEADER } from '../../services/audit.service.ts';
import type { StartedStream } from '../../services/stream-commands.ts';
import { NestedError } from '../schemas/common.schema.ts';

/** The operator API for streaming commands (exports); operator token only. */
export const adminStreamRoutes =
  (deps: { streams: (name: string, args: unknown) => Promise<StartedStream> }): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.post(
      '/api/admin/streams/:name',
      {
        config: { auth: 'operator', errorFormat: 'nested' },
        schema: {
          hide: true,
          params: Type.Object({ name: Type.String({ maxLength: 64 }) }),
          body: Type.Object({ args: Type.Unknown() }),
          response: { 400: NestedError, 401: NestedError, 404: NestedError },
        },
      },
      async (req, reply) => {
        const { chunks, throughSeq } = await deps.streams(req.params.name, req.body.args ?? {});
        if (throughSeq !== undefined) reply.header(CHAIN_SEQ_HEADER, String(throughSeq));
        return reply.type('text/plain; charset=utf-8').send(Readable.from(chunks) as never);
      },
    );
  };
