/** Public surface of the customers domain for other domains (MCP tools, tickets). */
export {
  listCustomers, getCustomer, createCustomer, updateCustomer, archiveCustomer, deleteCustomer, presentCustomer,
  type CreateCustomerInput, type ListCustomersQuery,
} from './customers.js';
