import * as req from '../schemas';
import * as res from '../responses';
import { operation } from '../operation';

/** API keys (docs/integrations.md, docs/security.md). */

export const listKeys = operation({
  method: 'get',
  path: '/v1/keys',
  operationId: 'listKeys',
  tag: 'Account',
  scope: 'keys',
  role: 'admin',
  summary: 'List API keys',
  ok: [200, res.apiKeyList],
});

export const createKey = operation({
  method: 'post',
  path: '/v1/keys',
  operationId: 'createKey',
  tag: 'Account',
  scope: 'keys',
  role: 'admin',
  summary: 'Create an API key',
  description:
    'A secret key (default) of the scopes given (all when omitted), optionally limited to client addresses and an expiry; or a publishable key for web pages (docs/integrations.md).',
  body: req.keyBody,
  ok: [201, res.apiKeyCreated],
  maxBodyBytes: 4096,
  creates: true,
});

export const updateKey = operation({
  method: 'patch',
  path: '/v1/keys/{id}',
  operationId: 'updateKey',
  tag: 'Account',
  scope: 'keys',
  role: 'admin',
  summary: "Change a key's name, scopes or restrictions",
  description: 'Only the fields sent change; `null` clears a restriction. Takes effect within seconds on every server (keys are cached 5 s per process).',
  body: req.keyUpdateBody,
  ok: [200, res.apiKey],
  errors: [400, 404, 413],
  maxBodyBytes: 4096,
});

export const revokeKey = operation({
  method: 'delete',
  path: '/v1/keys/{id}',
  operationId: 'revokeKey',
  tag: 'Account',
  scope: 'keys',
  role: 'admin',
  summary: 'Revoke an API key',
  ok: [200, res.apiKeyRevoked],
  errors: [404],
});
