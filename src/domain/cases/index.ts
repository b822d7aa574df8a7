// Cases domain: alert and case lifecycles, due dates, case numbers, officer assignment.
export * from './assignment.ts';
export * from './case-number.ts';
export * from './change-time.ts';
export * from './due-dates.ts';
export * from './state-machines.ts';
