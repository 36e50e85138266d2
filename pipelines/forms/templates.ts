// Pre-built form structures (`template_id`), each question mapped to the ACORD field it fills.
// Written in stored (normalised) form so that GET of a fresh form returns exactly these objects.
import type { Condition, FormStructure, InsuranceLine, Question, Rule, Step, TemplateId } from './schema.ts';

type Extra = Partial<Pick<Question, 'required' | 'initially_hidden' | 'rules' | 'help_text'>> & {
  options?: string[];
  settings?: Record<string, unknown>;
};

const q = (type: Question['type'], id: string, label: string, acord_field: string, extra: Extra = {}): Question =>
  ({ id, type, label, required: false, initially_hidden: false, rules: [], acord_field, ...extra }) as Question;

const when = (source_question_id: string, operator: Condition['operator'], value?: string | number): Condition =>
  value === undefined ? { source_question_id, operator } : { source_question_id, operator, value };
const rule = (action: Rule['action'], conditions: Condition[], extra: Partial<Rule> = {}): Rule => ({
  condition_mode: 'all',
  conditions,
  action,
  ...extra,
});
/** Hidden until `condition` holds; required once shown when `required`. */
const revealedWhen = (condition: Condition, required = true): Extra => ({ initially_hidden: true, required, rules: [rule('show', [condition])] });

type StepDraft = Omit<Step, 'position'>;
const step = (id: string, name: string, type: Step['type'], segment: Step['segment'], questions: Question[], description?: string): StepDraft =>
  description === undefined ? { id, type, name, segment, questions } : { id, type, name, segment, description, questions };
const structure = (steps: StepDraft[]): FormStructure => ({ steps: steps.map((s, position) => ({ ...s, position }) as Step) });

const YES_NO = ['Yes', 'No'];
/** A required Yes/No question. */
const yesNo = (id: string, label: string, acord_field: string, extra: Extra = {}): Question =>
  q('single_choice', id, label, acord_field, { required: true, options: YES_NO, ...extra });
const col = (
  id: string,
  label: string,
  type: 'short_text' | 'email' | 'number' | 'date' | 'dropdown',
  acord_field: string,
  extra: { required?: boolean; options?: string[] } = {},
) => ({
  id,
  label,
  type,
  acord_field,
  ...extra,
});
const table = (columns: ReturnType<typeof col>[], rows: { min_rows?: number; max_rows?: number } = {}) => ({ columns, ...rows });

const consentStep = (form: string) =>
  step('review', 'Review and confirm', 'consent', 'after', [
    q('long_text', 'additional_comments', 'Anything else we should know?', `${form}.Remarks.Text`, { settings: { max_length: 4000 } }),
    q('single_choice', 'attestation', 'Please confirm', `${form}.Applicant.Attestation`, {
      required: true,
      options: ['I confirm the information I provided is true and complete'],
    }),
  ]);

// ---- auto ------------------------------------------------------------------------------------------

const auto = structure([
  step('contact', 'Your details', 'contact', 'before', [
    q('short_text', 'first_name', 'First name', 'ACORD90.Applicant.FirstName', { required: true }),
    q('short_text', 'last_name', 'Last name', 'ACORD90.Applicant.LastName', { required: true }),
    q('email', 'email', 'Email', 'ACORD90.Applicant.Email', { required: true }),
    q('short_text', 'phone', 'Phone number', 'ACORD90.Applicant.Phone', { required: true }),
    q('date', 'date_of_birth', 'Date of birth', 'ACORD90.Applicant.DateOfBirth', { required: true }),
    q('address', 'mailing_address', 'Mailing address', 'ACORD90.Applicant.MailingAddress', { required: true, settings: { include_line2: true } }),
  ]),
  step('policy', 'Policy', 'coverage', 'main', [
    q('date', 'effective_date', 'When should the policy start?', 'ACORD90.Policy.EffectiveDate', { required: true }),
    yesNo('garaged_at_mailing', 'Are all vehicles kept overnight at your mailing address?', 'ACORD90.Policy.GaragingSameAsMailing'),
    q(
      'address',
      'garaging_address',
      'Where are the vehicles kept overnight?',
      'ACORD90.Policy.GaragingAddress',
      revealedWhen(when('garaged_at_mailing', 'equals', 'No')),
    ),
  ]),
  step('drivers', 'Drivers', 'drivers', 'main', [
    q('data_table', 'drivers', 'Everyone who will drive the vehicles, starting with yourself', 'ACORD90.Driver', {
      required: true,
      settings: table(
        [
          col('first_name', 'First name', 'short_text', 'ACORD90.Driver.FirstName', { required: true }),
          col('last_name', 'Last name', 'short_text', 'ACORD90.Driver.LastName', { required: true }),
          col('date_of_birth', 'Date of birth', 'date', 'ACORD90.Driver.DateOfBirth', { required: true }),
          col('relationship', 'Relationship to you', 'dropdown', 'ACORD90.Driver.Relationship', {
            options: ['Self', 'Spouse', 'Child', 'Other household member', 'Employee', 'Other'],
          }),
          col('marital_status', 'Marital status', 'dropdown', 'ACORD90.Driver.MaritalStatus', {
            options: ['Single', 'Married', 'Divorced', 'Widowed', 'Separated'],
          }),
          col('license_number', 'Driver licence number', 'short_text', 'ACORD90.Driver.LicenseNumber', { required: true }),
          col('license_state', 'Licence state', 'short_text', 'ACORD90.Driver.LicenseState', { required: true }),
          col('date_licensed', 'Date first licensed', 'date', 'ACORD90.Driver.DateLicensed'),
        ],
        { min_rows: 1, max_rows: 10 },
      ),
    }),
    yesNo('incidents', 'Has any driver had an accident, violation or licence suspension in the last 5 years?', 'ACORD90.DriverHistory.AnyIncidents'),
    q('data_table', 'incident_details', 'Tell us about each accident or violation', 'ACORD90.DriverHistory.Incident', {
      ...revealedWhen(when('incidents', 'equals', 'Yes')),
      settings: table(
        [
          col('driver_name', 'Driver', 'short_text', 'ACORD90.DriverHistory.Incident.DriverName', { required: true }),
          col('date', 'Date', 'date', 'ACORD90.DriverHistory.Incident.Date', { required: true }),
          col('kind', 'Type', 'dropdown', 'ACORD90.DriverHistory.Incident.Type', {
            required: true,
            options: ['At-fault accident', 'Not-at-fault accident', 'Speeding', 'DUI / DWI', 'Other moving violation', 'Licence suspension'],
          }),
          col('description', 'What happened', 'short_text', 'ACORD90.DriverHistory.Incident.Description'),
        ],
        { min_rows: 1, max_rows: 20 },
      ),
    }),
  ]),
  step('vehicles', 'Vehicles', 'vehicles', 'main', [
    q('data_table', 'vehicles', 'Vehicles to insure', 'ACORD90.Vehicle', {
      required: true,
      settings: table(
        [
          col('year', 'Year', 'number', 'ACORD90.Vehicle.ModelYear', { required: true }),
          col('make', 'Make', 'short_text', 'ACORD90.Vehicle.Make', { required: true }),
          col('model', 'Model', 'short_text', 'ACORD90.Vehicle.Model', { required: true }),
          col('vin', 'VIN', 'short_text', 'ACORD90.Vehicle.VIN', { required: true }),
          col('use', 'Primary use', 'dropdown', 'ACORD90.Vehicle.Use', { options: ['Commute', 'Pleasure', 'Business', 'Farm', 'Rideshare'] }),
          col('annual_miles', 'Miles per year', 'number', 'ACORD90.Vehicle.AnnualMileage'),
          col('ownership', 'Owned, financed or leased', 'dropdown', 'ACORD90.Vehicle.OwnershipType', { options: ['Owned', 'Financed', 'Leased'] }),
        ],
        { min_rows: 1, max_rows: 10 },
      ),
    }),
    yesNo('has_lienholder', 'Is any vehicle financed or leased?', 'ACORD90.AdditionalInterest.LienholderIndicator'),
    q(
      'long_text',
      'lienholder_details',
      'Name and address of each lender or leasing company',
      'ACORD90.AdditionalInterest.NameAndAddress',
      revealedWhen(when('has_lienholder', 'equals', 'Yes')),
    ),
  ]),
  step('coverage', 'Coverage', 'coverage', 'main', [
    q('dropdown', 'liability_limits', 'Liability limits', 'ACORD90.Coverage.LiabilityLimits', {
      required: true,
      options: ['State minimum', '25/50/25', '50/100/50', '100/300/100', '250/500/100', '500 CSL'],
      help_text: 'Bodily injury per person / per accident / property damage, in thousands of dollars.',
    }),
    yesNo('physical_damage', 'Do you want comprehensive and collision coverage?', 'ACORD90.Coverage.PhysicalDamageIndicator'),
    q('dropdown', 'deductible', 'Comprehensive and collision deductible', 'ACORD90.Coverage.CollisionDeductible', {
      ...revealedWhen(when('physical_damage', 'equals', 'Yes')),
      options: ['$250', '$500', '$1,000', '$2,500'],
    }),
    q('multi_choice', 'optional_coverages', 'Optional coverages', 'ACORD90.Coverage.OptionalCoverages', {
      options: ['Uninsured / underinsured motorist', 'Medical payments', 'Rental reimbursement', 'Roadside assistance'],
    }),
  ]),
  step('current_insurance', 'Current insurance', 'prior_insurance', 'main', [
    yesNo('currently_insured', 'Do you have auto insurance today?', 'ACORD90.PriorCarrier.CurrentlyInsured', {
      rules: [rule('skip_to_step', [when('currently_insured', 'equals', 'No')], { target_step_id: 'review' })],
    }),
  ]),
  step('current_policy', 'Current policy', 'prior_insurance', 'main', [
    q('short_text', 'prior_carrier', 'Current insurance company', 'ACORD90.PriorCarrier.Name', { required: true }),
    q('short_text', 'prior_policy_number', 'Policy number', 'ACORD90.PriorCarrier.PolicyNumber'),
    q('date', 'prior_expiration_date', 'When does it expire?', 'ACORD90.PriorCarrier.ExpirationDate', { required: true }),
    q('number', 'prior_years', 'Years with this company', 'ACORD90.PriorCarrier.YearsWithCarrier', { settings: { min: 0, max: 80, integer: true } }),
    q('dropdown', 'prior_limits', 'Current liability limits', 'ACORD90.PriorCarrier.LiabilityLimits', {
      options: ['State minimum', '25/50/25', '50/100/50', '100/300/100', '250/500/100', '500 CSL', 'Not sure'],
    }),
    q('file_upload', 'prior_declarations', 'Upload your current declarations page (optional)', 'ACORD90.Attachments.PriorDeclarations', {
      settings: { accept: ['.pdf', 'image/*'], max_files: 3 },
    }),
  ]),
  consentStep('ACORD90'),
]);

// ---- home ------------------------------------------------------------------------------------------

const home = structure([
  step('contact', 'Your details', 'contact', 'before', [
    q('short_text', 'first_name', 'First name', 'ACORD80.Applicant.FirstName', { required: true }),
    q('short_text', 'last_name', 'Last name', 'ACORD80.Applicant.LastName', { required: true }),
    q('email', 'email', 'Email', 'ACORD80.Applicant.Email', { required: true }),
    q('short_text', 'phone', 'Phone number', 'ACORD80.Applicant.Phone', { required: true }),
    q('date', 'date_of_birth', 'Date of birth', 'ACORD80.Applicant.DateOfBirth'),
    q('address', 'property_address', 'Address of the home to insure', 'ACORD80.Location.Address', {
      required: true,
      settings: { include_line2: true, include_county: true },
    }),
    yesNo('mailing_same', 'Is this also your mailing address?', 'ACORD80.Applicant.MailingSameAsLocation'),
    q('address', 'mailing_address', 'Mailing address', 'ACORD80.Applicant.MailingAddress', revealedWhen(when('mailing_same', 'equals', 'No'))),
  ]),
  step('property', 'The home', 'property', 'main', [
    q('single_choice', 'occupancy', 'How is the home used?', 'ACORD80.Dwelling.Occupancy', {
      required: true,
      options: ['Primary residence', 'Secondary or seasonal home', 'Rented to others'],
      help_text: 'Homes rented to others need a dwelling-fire policy; we will contact you about it.',
      rules: [rule('end_form', [when('occupancy', 'equals', 'Rented to others')])],
    }),
    q('dropdown', 'dwelling_type', 'Type of home', 'ACORD80.Dwelling.ResidenceType', {
      required: true,
      options: ['Single-family house', 'Townhouse', 'Duplex', 'Manufactured / mobile home'],
    }),
    q('number', 'year_built', 'Year built', 'ACORD80.Construction.YearBuilt', { required: true, settings: { min: 1700, max: 2100, integer: true } }),
    q('number', 'living_area', 'Living area', 'ACORD80.Construction.TotalLivingArea', { required: true, settings: { min: 100, max: 100_000, unit: 'sq ft' } }),
    q('date', 'purchase_date', 'When did you buy it?', 'ACORD80.Dwelling.PurchaseDate'),
    q('number', 'purchase_price', 'Purchase price', 'ACORD80.Dwelling.PurchasePrice', { settings: { min: 0, unit: 'USD' } }),
  ]),
  step('construction', 'Construction', 'construction', 'main', [
    q('dropdown', 'construction_type', 'Construction', 'ACORD80.Construction.ConstructionType', {
      required: true,
      options: ['Frame', 'Masonry', 'Masonry veneer', 'Fire resistive', 'Log', 'Other'],
    }),
    q('number', 'stories', 'Number of stories', 'ACORD80.Construction.Stories', { settings: { min: 1, max: 10, integer: true } }),
    q('dropdown', 'foundation', 'Foundation', 'ACORD80.Construction.FoundationType', { options: ['Slab', 'Crawl space', 'Basement', 'Piers / stilts'] }),
    q('dropdown', 'roof_material', 'Roof material', 'ACORD80.Construction.RoofType', {
      required: true,
      options: ['Asphalt shingle', 'Architectural shingle', 'Metal', 'Tile', 'Slate', 'Wood shake', 'Flat / membrane'],
    }),
    q('number', 'roof_year', 'Year the roof was installed or last replaced', 'ACORD80.Construction.RoofYear', {
      settings: { min: 1900, max: 2100, integer: true },
    }),
    q('dropdown', 'heating', 'Primary heating', 'ACORD80.Construction.PrimaryHeatSource', {
      options: ['Gas', 'Electric', 'Oil', 'Heat pump', 'Wood / pellet stove', 'Other'],
    }),
    q('multi_choice', 'system_updates', 'Which systems have been updated in the last 30 years?', 'ACORD80.Construction.SystemUpdates', {
      options: ['Roof', 'Electrical', 'Plumbing', 'Heating'],
      help_text: 'Required for homes built before 1950.',
      rules: [rule('require', [when('year_built', 'lessThan', 1950)])],
    }),
  ]),
  step('protection', 'Protection and hazards', 'protection', 'main', [
    q('dropdown', 'hydrant_distance', 'Distance to the nearest fire hydrant', 'ACORD80.Protection.HydrantDistance', {
      required: true,
      options: ['Under 500 ft', '500 to 1,000 ft', 'Over 1,000 ft', 'Not sure'],
    }),
    q('number', 'fire_station_miles', 'Miles to the nearest fire station', 'ACORD80.Protection.FireStationDistance', { settings: { min: 0, max: 200 } }),
    q('multi_choice', 'protective_devices', 'Protective devices', 'ACORD80.Protection.Devices', {
      options: ['Smoke detectors', 'Central fire alarm', 'Central burglar alarm', 'Sprinklers', 'Deadbolts', 'Fire extinguisher', 'Water leak sensors'],
    }),
    yesNo('pool', 'Is there a swimming pool?', 'ACORD80.Hazards.SwimmingPool'),
    q('single_choice', 'pool_fenced', 'Is the pool fenced with a locking gate?', 'ACORD80.Hazards.PoolFenced', {
      ...revealedWhen(when('pool', 'equals', 'Yes')),
      options: YES_NO,
    }),
    yesNo('trampoline', 'Is there a trampoline?', 'ACORD80.Hazards.Trampoline'),
    yesNo('dogs', 'Do you have any dogs?', 'ACORD80.Hazards.Animals'),
    q('short_text', 'dog_breeds', 'Breeds', 'ACORD80.Hazards.AnimalBreeds', revealedWhen(when('dogs', 'equals', 'Yes'))),
  ]),
  step('coverage', 'Coverage', 'coverage', 'main', [
    q('date', 'effective_date', 'When should the policy start?', 'ACORD80.Policy.EffectiveDate', { required: true }),
    q('number', 'dwelling_limit', 'Cost to rebuild the home (if known)', 'ACORD80.Coverage.DwellingLimit', { settings: { min: 0, unit: 'USD' } }),
    q('dropdown', 'deductible', 'All-peril deductible', 'ACORD80.Coverage.Deductible', {
      required: true,
      options: ['$500', '$1,000', '$2,500', '$5,000', '1%', '2%'],
    }),
    yesNo('has_mortgage', 'Is there a mortgage on the home?', 'ACORD80.AdditionalInterest.MortgageeIndicator'),
    q('data_table', 'mortgagees', 'Mortgage companies', 'ACORD80.AdditionalInterest.Mortgagee', {
      ...revealedWhen(when('has_mortgage', 'equals', 'Yes')),
      settings: table(
        [
          col('name', 'Lender', 'short_text', 'ACORD80.AdditionalInterest.Mortgagee.Name', { required: true }),
          col('address', 'Lender address', 'short_text', 'ACORD80.AdditionalInterest.Mortgagee.Address'),
          col('loan_number', 'Loan number', 'short_text', 'ACORD80.AdditionalInterest.Mortgagee.LoanNumber'),
        ],
        { min_rows: 1, max_rows: 3 },
      ),
    }),
  ]),
  step('loss_history', 'Prior losses', 'loss_history', 'main', [
    yesNo('prior_losses', 'Any claims or losses at any home you owned in the last 5 years?', 'ACORD80.LossHistory.AnyLosses'),
    q('data_table', 'losses', 'Each loss', 'ACORD80.LossHistory.Loss', {
      ...revealedWhen(when('prior_losses', 'equals', 'Yes')),
      settings: table(
        [
          col('date', 'Date', 'date', 'ACORD80.LossHistory.Loss.Date', { required: true }),
          col('kind', 'Type', 'dropdown', 'ACORD80.LossHistory.Loss.Type', {
            required: true,
            options: ['Fire', 'Water', 'Wind / hail', 'Theft', 'Liability', 'Other'],
          }),
          col('amount', 'Amount paid', 'number', 'ACORD80.LossHistory.Loss.Amount'),
          col('description', 'Description', 'short_text', 'ACORD80.LossHistory.Loss.Description'),
        ],
        { min_rows: 1, max_rows: 20 },
      ),
    }),
  ]),
  step('prior_insurance', 'Current insurance', 'prior_insurance', 'main', [
    yesNo('currently_insured', 'Is the home insured today?', 'ACORD80.PriorCarrier.CurrentlyInsured'),
    q('short_text', 'prior_carrier', 'Current insurance company', 'ACORD80.PriorCarrier.Name', revealedWhen(when('currently_insured', 'equals', 'Yes'))),
    q(
      'short_text',
      'prior_policy_number',
      'Policy number',
      'ACORD80.PriorCarrier.PolicyNumber',
      revealedWhen(when('currently_insured', 'equals', 'Yes'), false),
    ),
    q('date', 'prior_expiration_date', 'When does it expire?', 'ACORD80.PriorCarrier.ExpirationDate', revealedWhen(when('currently_insured', 'equals', 'Yes'))),
    q('dropdown', 'no_prior_reason', 'Why is the home not insured today?', 'ACORD80.PriorCarrier.ReasonNoPriorCoverage', {
      ...revealedWhen(when('currently_insured', 'equals', 'No')),
      options: ['New purchase', 'First home', 'Coverage lapsed', 'Other'],
    }),
  ]),
  consentStep('ACORD80'),
]);

// ---- intake ----------------------------------------------------------------------------------------

const LINES = ['Auto', 'Home or renters', 'Umbrella', 'Business', 'Life', 'Other'];
const intake = structure([
  step('contact', 'Contact', 'contact', 'before', [
    q('short_text', 'full_name', 'Full name', 'ACORD125.Contact.FullName', { required: true }),
    q('email', 'email', 'Email', 'ACORD125.Contact.Email', { required: true }),
    q('short_text', 'phone', 'Phone number', 'ACORD125.Contact.Phone', { required: true }),
    q('dropdown', 'preferred_contact', 'Best way to reach you', 'ACORD125.Contact.PreferredMethod', { options: ['Email', 'Phone call', 'Text message'] }),
    q('single_choice', 'request_type', 'How can we help?', 'ACORD125.Policy.TransactionType', {
      required: true,
      options: ['New quote', 'Review or change my coverage', 'Report a claim'],
      help_text: 'Claims go straight to your carrier; we will call you back to help.',
      rules: [rule('end_form', [when('request_type', 'equals', 'Report a claim')])],
    }),
  ]),
  step('needs', 'What to insure', 'custom', 'main', [
    q('single_choice', 'customer_type', 'Who is the insurance for?', 'ACORD125.NamedInsured.EntityType', {
      required: true,
      options: ['Me or my household', 'A business'],
    }),
    q('multi_choice', 'lines', 'What would you like to insure?', 'ACORD125.Policy.LinesOfBusiness', {
      required: true,
      options: LINES,
      rules: [rule('skip_to_step', [when('customer_type', 'equals', 'Me or my household')], { target_step_id: 'prior_insurance' })],
    }),
    q('address', 'mailing_address', 'Mailing address', 'ACORD125.NamedInsured.MailingAddress', { required: true }),
    q('number', 'vehicle_count', 'How many vehicles?', 'ACORD125.Exposure.VehicleCount', {
      ...revealedWhen(when('lines', 'contains', 'Auto')),
      settings: { min: 1, max: 500, integer: true },
    }),
    q('single_choice', 'home_ownership', 'Do you own or rent your home?', 'ACORD125.Location.OwnershipType', {
      ...revealedWhen(when('lines', 'contains', 'Home or renters')),
      options: ['Own', 'Rent'],
    }),
    q('number', 'umbrella_limit', 'Umbrella limit you are considering', 'ACORD125.Exposure.UmbrellaLimit', {
      ...revealedWhen(when('lines', 'contains', 'Umbrella'), false),
      settings: { min: 1_000_000, max: 50_000_000, unit: 'USD' },
    }),
    q('long_text', 'other_needs', 'What else would you like to insure?', 'ACORD125.Remarks.Text', revealedWhen(when('lines', 'contains', 'Other'))),
    q('date', 'effective_date', 'When do you need coverage to start?', 'ACORD125.Policy.EffectiveDate', { required: true }),
  ]),
  step('business', 'Your business', 'business', 'main', [
    q('short_text', 'business_name', 'Legal business name', 'ACORD125.NamedInsured.BusinessName', { required: true }),
    q('dropdown', 'business_structure', 'Business structure', 'ACORD125.NamedInsured.BusinessType', {
      required: true,
      options: ['Sole proprietor', 'Partnership', 'LLC', 'Corporation', 'Non-profit', 'Other'],
    }),
    q('short_text', 'fein', 'Federal employer ID (FEIN)', 'ACORD125.NamedInsured.FEIN'),
    q('long_text', 'operations', 'What does the business do?', 'ACORD125.NamedInsured.NatureOfBusiness', { required: true }),
    q('number', 'years_in_business', 'Years in business', 'ACORD125.NamedInsured.YearsInBusiness', { settings: { min: 0, max: 300, integer: true } }),
    q('number', 'employees', 'Number of employees', 'ACORD125.NamedInsured.EmployeeCount', { settings: { min: 0, integer: true } }),
    q('number', 'annual_revenue', 'Annual revenue', 'ACORD125.NamedInsured.AnnualRevenue', { settings: { min: 0, unit: 'USD' } }),
  ]),
  step('prior_insurance', 'Current insurance', 'prior_insurance', 'main', [
    yesNo('has_insurance', 'Do you have this insurance today?', 'ACORD125.PriorCarrier.CurrentlyInsured'),
    q('short_text', 'current_carrier', 'Current insurance company', 'ACORD125.PriorCarrier.Name', revealedWhen(when('has_insurance', 'equals', 'Yes'))),
    q('date', 'renewal_date', 'Renewal date', 'ACORD125.PriorCarrier.ExpirationDate', revealedWhen(when('has_insurance', 'equals', 'Yes'), false)),
    q('number', 'current_premium', 'Current annual premium', 'ACORD125.PriorCarrier.Premium', {
      ...revealedWhen(when('has_insurance', 'equals', 'Yes'), false),
      settings: { min: 0, unit: 'USD' },
    }),
    yesNo('prior_losses', 'Any claims in the last 5 years?', 'ACORD125.LossHistory.AnyLosses'),
    q(
      'long_text',
      'loss_details',
      'Tell us about them (dates, what happened, amounts)',
      'ACORD125.LossHistory.Description',
      revealedWhen(when('prior_losses', 'equals', 'Yes')),
    ),
  ]),
  step('documents', 'Documents', 'custom', 'after', [
    q('file_upload', 'declarations', 'Upload current declarations pages (optional)', 'ACORD125.Attachments.DeclarationsPages', {
      settings: { accept: ['.pdf', 'image/*'], max_files: 5 },
    }),
    q('dropdown', 'best_time', 'Best time to reach you', 'ACORD125.Contact.PreferredTime', { options: ['Morning', 'Afternoon', 'Evening', 'Any time'] }),
  ]),
]);

// ---- habitational ----------------------------------------------------------------------------------

const habitational = structure([
  step('contact', 'Applicant', 'applicant', 'before', [
    q('short_text', 'named_insured', 'Named insured (owning entity)', 'ACORD125.NamedInsured.FullName', { required: true }),
    q('dropdown', 'entity_type', 'Entity type', 'ACORD125.NamedInsured.BusinessType', {
      required: true,
      options: ['Individual', 'LLC', 'Corporation', 'Partnership', 'Trust', 'Condominium / HOA association'],
    }),
    q('short_text', 'fein', 'FEIN', 'ACORD125.NamedInsured.FEIN'),
    q('short_text', 'contact_name', 'Contact person', 'ACORD125.Contact.FullName', { required: true }),
    q('email', 'contact_email', 'Contact email', 'ACORD125.Contact.Email', { required: true }),
    q('short_text', 'contact_phone', 'Contact phone', 'ACORD125.Contact.Phone', { required: true }),
    q('address', 'mailing_address', 'Mailing address', 'ACORD125.NamedInsured.MailingAddress', { required: true }),
    q('date', 'effective_date', 'Proposed effective date', 'ACORD125.Policy.EffectiveDate', { required: true }),
  ]),
  step('building', 'Building', 'building', 'main', [
    q('address', 'property_address', 'Property address', 'ACORD140.Location.Address', { required: true, settings: { include_county: true } }),
    q('number', 'year_built', 'Year built', 'ACORD140.Building.YearBuilt', { required: true, settings: { min: 1700, max: 2100, integer: true } }),
    q('dropdown', 'construction_class', 'Construction class', 'ACORD140.Building.ConstructionType', {
      required: true,
      options: ['Frame', 'Joisted masonry', 'Non-combustible', 'Masonry non-combustible', 'Modified fire resistive', 'Fire resistive'],
    }),
    q('number', 'stories', 'Stories', 'ACORD140.Building.Stories', { required: true, settings: { min: 1, max: 150, integer: true } }),
    q('number', 'building_count', 'Number of buildings at this address', 'ACORD140.Location.BuildingCount', { settings: { min: 1, max: 500, integer: true } }),
    q('number', 'total_area', 'Total floor area', 'ACORD140.Building.TotalArea', { required: true, settings: { min: 100, unit: 'sq ft' } }),
    q('dropdown', 'roof_type', 'Roof covering', 'ACORD140.Building.RoofType', {
      options: ['Asphalt shingle', 'Metal', 'Tile', 'Built-up / membrane', 'Slate', 'Other'],
    }),
    q('number', 'roof_year', 'Year the roof was last replaced', 'ACORD140.Building.RoofYear', { settings: { min: 1900, max: 2100, integer: true } }),
    q('data_table', 'system_updates', 'Updates to building systems', 'ACORD140.Building.Update', {
      help_text: 'Required for buildings built before 1980.',
      rules: [rule('require', [when('year_built', 'lessThan', 1980)])],
      settings: table(
        [
          col('system', 'System', 'dropdown', 'ACORD140.Building.Update.System', {
            required: true,
            options: ['Roof', 'Electrical', 'Plumbing', 'Heating / HVAC'],
          }),
          col('year', 'Year updated', 'number', 'ACORD140.Building.Update.Year', { required: true }),
        ],
        { max_rows: 8 },
      ),
    }),
    q('single_choice', 'sprinklered', 'Is the building sprinklered?', 'ACORD140.Protection.Sprinklered', {
      required: true,
      options: ['Fully', 'Partially', 'No'],
    }),
    q('number', 'sprinkler_percent', 'Percentage of the building covered by sprinklers', 'ACORD140.Protection.SprinklerPercent', {
      ...revealedWhen(when('sprinklered', 'equals', 'Partially')),
      settings: { min: 1, max: 99, unit: '%' },
    }),
    q('multi_choice', 'alarms', 'Alarm systems', 'ACORD140.Protection.Alarms', {
      options: ['Central station fire', 'Local fire', 'Central station burglar', 'Smoke detectors in every unit', 'None'],
    }),
    q('number', 'building_limit', 'Building replacement cost', 'ACORD140.Coverage.BuildingLimit', { required: true, settings: { min: 0, unit: 'USD' } }),
  ]),
  step('occupancy', 'Occupancy', 'occupancy', 'main', [
    q('dropdown', 'occupancy_type', 'Occupancy', 'ACORD140.Occupancy.Description', {
      required: true,
      options: ['Apartments', 'Condominium association', 'Student housing', 'Senior living', 'Mixed use (residential and commercial)'],
      rules: [rule('skip_to_step', [when('occupancy_type', 'equals', 'Condominium association')], { target_step_id: 'loss_history' })],
    }),
    q('number', 'total_units', 'Total residential units', 'ACORD126.Hazard.Units', { required: true, settings: { min: 1, max: 10_000, integer: true } }),
    q('number', 'occupancy_rate', 'Percentage of units currently occupied', 'ACORD140.Occupancy.OccupiedPercent', {
      required: true,
      settings: { min: 0, max: 100, unit: '%' },
    }),
    q('data_table', 'unit_mix', 'Unit mix', 'ACORD140.Occupancy.UnitMix', {
      settings: table(
        [
          col('unit_type', 'Unit type', 'dropdown', 'ACORD140.Occupancy.UnitMix.UnitType', {
            required: true,
            options: ['Studio', '1 bedroom', '2 bedrooms', '3+ bedrooms'],
          }),
          col('count', 'Number of units', 'number', 'ACORD140.Occupancy.UnitMix.Count', { required: true }),
          col('monthly_rent', 'Average monthly rent', 'number', 'ACORD140.Occupancy.UnitMix.MonthlyRent'),
        ],
        { max_rows: 10 },
      ),
    }),
    q('number', 'commercial_area', 'Commercial floor area', 'ACORD140.Occupancy.CommercialArea', {
      ...revealedWhen(when('occupancy_type', 'equals', 'Mixed use (residential and commercial)')),
      settings: { min: 0, unit: 'sq ft' },
    }),
    q(
      'long_text',
      'commercial_tenants',
      'Commercial tenants and what they do',
      'ACORD140.Occupancy.CommercialTenants',
      revealedWhen(when('occupancy_type', 'equals', 'Mixed use (residential and commercial)')),
    ),
    q('multi_choice', 'amenities', 'Amenities', 'ACORD126.Hazard.Amenities', {
      options: ['Swimming pool', 'Playground', 'Fitness center', 'Elevators', 'Parking garage', 'None'],
    }),
    q('single_choice', 'pool_fenced', 'Is the pool fenced with a self-latching gate?', 'ACORD126.Hazard.PoolFenced', {
      ...revealedWhen(when('amenities', 'contains', 'Swimming pool')),
      options: YES_NO,
    }),
  ]),
  step('leasing', 'Leasing and management', 'custom', 'main', [
    q('dropdown', 'lease_terms', 'Typical lease term', 'ACORD140.Occupancy.LeaseTerm', {
      required: true,
      options: ['12 months or longer', 'Month-to-month', 'Short-term rentals'],
    }),
    q('number', 'short_term_percent', 'Percentage of units rented short-term', 'ACORD140.Occupancy.ShortTermRentalPercent', {
      ...revealedWhen(when('lease_terms', 'equals', 'Short-term rentals')),
      settings: { min: 0, max: 100, unit: '%' },
    }),
    q('multi_choice', 'tenant_screening', 'Tenant screening', 'ACORD140.Occupancy.TenantScreening', {
      options: ['Credit check', 'Criminal background check', 'Eviction history', 'Income verification'],
    }),
    q('single_choice', 'management', 'Who manages the property?', 'ACORD140.Occupancy.Management', {
      required: true,
      options: ['Owner', 'Professional management company'],
    }),
    q(
      'short_text',
      'management_company',
      'Management company',
      'ACORD140.Occupancy.ManagementCompany',
      revealedWhen(when('management', 'equals', 'Professional management company')),
    ),
  ]),
  step('loss_history', 'Loss history', 'loss_history', 'main', [
    yesNo('any_losses', 'Any losses at this property in the last 5 years?', 'ACORD125.LossHistory.AnyLosses'),
    q('data_table', 'losses', 'Each loss', 'ACORD125.LossHistory.Loss', {
      ...revealedWhen(when('any_losses', 'equals', 'Yes')),
      settings: table(
        [
          col('date', 'Date of loss', 'date', 'ACORD125.LossHistory.Loss.Date', { required: true }),
          col('kind', 'Type', 'dropdown', 'ACORD125.LossHistory.Loss.Type', {
            required: true,
            options: ['Fire', 'Water', 'Wind / hail', 'Slip and fall', 'Theft / vandalism', 'Other'],
          }),
          col('amount', 'Amount paid or reserved', 'number', 'ACORD125.LossHistory.Loss.Amount'),
          col('status', 'Status', 'dropdown', 'ACORD125.LossHistory.Loss.Status', { options: ['Open', 'Closed'] }),
          col('description', 'Description', 'short_text', 'ACORD125.LossHistory.Loss.Description'),
        ],
        { min_rows: 1, max_rows: 30 },
      ),
    }),
  ]),
  step('prior_insurance', 'Current insurance', 'prior_insurance', 'main', [
    q('short_text', 'current_carrier', 'Current property insurer', 'ACORD125.PriorCarrier.Name'),
    q('date', 'current_expiration', 'Current policy expiration', 'ACORD125.PriorCarrier.ExpirationDate'),
    q('number', 'current_premium', 'Current annual premium', 'ACORD125.PriorCarrier.Premium', { settings: { min: 0, unit: 'USD' } }),
    yesNo(
      'declined',
      'Has any insurer declined, cancelled or non-renewed this property in the last 3 years?',
      'ACORD125.PriorCarrier.DeclinedCancelledNonRenewed',
    ),
    q('long_text', 'declined_reason', 'What happened?', 'ACORD125.PriorCarrier.DeclinedReason', revealedWhen(when('declined', 'equals', 'Yes'))),
  ]),
  step('documents', 'Documents', 'custom', 'after', [
    q('file_upload', 'rent_roll', 'Current rent roll', 'ACORD140.Attachments.RentRoll', { settings: { accept: ['.pdf', '.xlsx', '.csv'], max_files: 2 } }),
    q('file_upload', 'loss_runs', 'Loss runs (last 5 years)', 'ACORD125.Attachments.LossRuns', { settings: { accept: ['.pdf'], max_files: 10 } }),
  ]),
]);

export interface FormTemplate {
  id: TemplateId;
  name: string;
  insurance_line: InsuranceLine;
  structure: FormStructure;
}

const TEMPLATES: Record<TemplateId, FormTemplate> = {
  auto: { id: 'auto', name: 'Personal auto quote', insurance_line: 'personal_auto', structure: auto },
  home: { id: 'home', name: 'Homeowners quote', insurance_line: 'homeowners', structure: home },
  intake: { id: 'intake', name: 'New client intake', insurance_line: 'multi_line', structure: intake },
  habitational: { id: 'habitational', name: 'Habitational (apartment building) submission', insurance_line: 'habitational', structure: habitational },
};

/** A fresh copy of a template (callers may change it freely). */
export function template(id: TemplateId): FormTemplate {
  if (!Object.hasOwn(TEMPLATES, id)) throw new RangeError(`unknown template_id "${String(id)}"`);
  return structuredClone(TEMPLATES[id]);
}

/** Every template, as fresh copies. */
export function templates(): FormTemplate[] {
  return (Object.keys(TEMPLATES) as TemplateId[]).map(template);
}
