export { Client, DEFAULT_BASE_URL, type ClientOptions, type RequestOptions, type RawResponse } from './client.js';
export {
  ApiError,
  ConnectionError,
  TimeoutError,
  ProtocolError,
  PayorchError,
  InvalidBaseUrlError,
  InvalidIdError,
  UnsendableRequestError,
  SimulateWithLiveKeyError,
} from './errors.js';
export type { Transport, TransportRequest, TransportResponse } from './transport.js';
export { InProcessTransport } from './inprocess.js';
