/**
 * `true` only when A and B are the same type (each assignable to the other). A column whose values a workflow's
 * contract also names is checked with `Agrees<SameType<Column, Contract>>`, which stops compiling when either side
 * changes without the other: the contract owns the workflow's payload, the entity its column.
 */
export type SameType<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export type Agrees<T extends true> = T;
