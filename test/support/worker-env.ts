import { inject } from 'vitest';

// Test files that read the table directly (integration tests) use the runtime's DynamoDB Local.
process.env.TABLE_NAME = inject('tableName');
process.env.DYNAMODB_ENDPOINT = inject('dynamoEndpoint');
process.env.JWT_SECRET = inject('jwtSecret');
process.env.AWS_REGION ??= 'local';
process.env.LOG_REQUESTS = 'false';
process.env.LOG_FORMAT = 'text';
