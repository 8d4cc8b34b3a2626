-- A request key is its sender's: the same key sent by another user is another request, not a way
-- to read the numbers the first sender was given. Rows kept from before name their sender where the
-- register names who was issued the block's first number, else nobody (a repeat of such a key
-- within its retention takes new numbers).
ALTER TABLE ts_dispenser_request ADD COLUMN requested_by varchar(128) NOT NULL DEFAULT '';
UPDATE ts_dispenser_request r SET requested_by = COALESCE((SELECT i.issued_by FROM ts_dispenser_issue i
    WHERE i.dispenser = r.dispenser AND i.period = COALESCE(r.period, '') AND i.number = r.first_number), '');
ALTER TABLE ts_dispenser_request DROP CONSTRAINT ts_dispenser_request_pkey;
ALTER TABLE ts_dispenser_request ADD PRIMARY KEY (dispenser, requested_by, request_key);
