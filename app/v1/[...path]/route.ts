/** Unknown /v1 paths answer in the API's error envelope, never Next's HTML page. */
function notFound(): Response {
  return Response.json({ error: 'not_found', message: 'No such endpoint. See the API reference in README.md.' }, { status: 404 });
}

export { notFound as GET, notFound as POST, notFound as PUT, notFound as PATCH, notFound as DELETE };
