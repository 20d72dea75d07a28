// Tables of this area (issue 4) are added here by its owner.
export {};
