// swagger-ui-dist ships no type declarations; components/docs/ApiReference.tsx types what it uses.
declare module 'swagger-ui-dist/swagger-ui-es-bundle.js';
