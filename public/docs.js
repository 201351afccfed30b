// Not inline in docs.html, so that a strict Content-Security-Policy (script-src 'self') allows it.
window.ui = SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  // No badge from validator.swagger.io: /docs makes no request outside this Worker.
  validatorUrl: null,
});
