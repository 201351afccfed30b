export function copySwaggerUi(): void;
