import type { AccountError } from '../accounts/users';
import { AppError } from '../errors/app-error';

/** Account errors in the API's envelope: the field at fault as `param`. */
export function accountAppError(error: AccountError): AppError {
  switch (error.code) {
    case 'email_taken':
      return new AppError('conflict', error.message, { param: 'email' });
    case 'invalid_email':
      return new AppError('invalid_request', error.message, { param: 'email' });
    case 'weak_password':
      return new AppError('invalid_request', error.message, { param: 'password' });
    case 'invalid_credentials':
      return new AppError('invalid_request', error.message, { param: 'current_password' });
  }
}
